package execution

import (
	"fmt"
	"sort"
	"sync"
	"time"
)

var stageMu sync.Mutex
var stageSum = map[string][]time.Duration{}
var stageOn bool
var stagePrefix string

func st(name string) func() {
	t := time.Now()
	return func() {
		d := time.Since(t)
		stageMu.Lock()
		if stageOn {
			if name[0] == 'R' {
				name = stagePrefix + name
			}
			stageSum[name] = append(stageSum[name], d)
		}
		stageMu.Unlock()
	}
}

func stageReport() string {
	stageMu.Lock()
	defer stageMu.Unlock()
	var names []string
	for k := range stageSum {
		names = append(names, k)
	}
	sort.Strings(names)
	s := ""
	for _, k := range names {
		ds := append([]time.Duration(nil), stageSum[k]...)
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		s += fmt.Sprintf("%-28s n=%4d median=%6dµs\n", k, len(ds), ds[len(ds)/2].Microseconds())
	}
	stageSum = map[string][]time.Duration{}
	return s
}
