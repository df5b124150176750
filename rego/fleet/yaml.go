package fleet

import (
	"encoding/json"

	"go.yaml.in/yaml/v3"
)

// yamlToJSON converts a YAML document (an OPA config may be YAML) to JSON.
func yamlToJSON(b []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
