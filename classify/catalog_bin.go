package classify

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// This file is the form the embedded catalog is loaded from: catalog.yaml
// decoded and written in a compact binary encoding (catalog.bin), which
// loads in a fraction of the time JSON takes (start-up matters: every
// check and every hook pays it). TestCatalogBin fails when catalog.bin is
// stale; `go generate ./classify` rewrites it.
//
// The encoding follows the catalog's Go types by reflection, so that it
// has no list of fields to keep up to date. A struct is a mask (uvarint)
// of the fields that are set, among its exported fields in order (those
// the JSON form has: not `json:"-"`), then each field set: a bool set is
// true and takes no byte, a pointer set is what it points to. A string is
// its length (uvarint) and bytes, an int a varint, a bool a byte, a
// pointer a byte (0 nil, 1 set) and the value, a slice or map its length
// plus one (0 is nil) and its elements (a map's in key order). As in the
// JSON form, an empty slice or map in an omitempty field is not set (nil).
// The file starts with catalogBinMagic and a digest of the types' shape
// (see newBinType): a file written for other types is refused, never read
// wrong.

// catalogBinMagic starts catalog.bin.
const catalogBinMagic = "shellgate catalog bin 1\n"

// binType is how one Go type of the catalog is encoded.
type binType struct {
	t      reflect.Type
	kind   reflect.Kind
	fields []binField // a struct's
	elem   *binType   // a slice's, pointer's or map's (values; keys are strings)
	// block, for a slice of pointers, is a slice of what they point to:
	// a list's values are allocated together.
	block reflect.Type
}

// binField is one field of a struct type.
type binField struct {
	index     int
	omitEmpty bool
	t         *binType
}

var (
	catalogTypeOnce  sync.Once
	catalogType      *binType
	catalogShapeSum  [8]byte
	catalogTypeError error
)

// catalogBinType returns the encoding of Catalog and the digest of its
// shape.
func catalogBinType() (*binType, [8]byte, error) {
	catalogTypeOnce.Do(func() {
		seen := map[reflect.Type]*binType{}
		var shape strings.Builder
		catalogType, catalogTypeError = newBinType(reflect.TypeFor[Catalog](), seen, &shape)
		sum := sha256.Sum256([]byte(shape.String()))
		copy(catalogShapeSum[:], sum[:])
	})
	return catalogType, catalogShapeSum, catalogTypeError
}

// newBinType works out the encoding of t, writing its shape to shape
// (each named type's once: the catalog's types are recursive).
func newBinType(t reflect.Type, seen map[reflect.Type]*binType, shape *strings.Builder) (*binType, error) {
	if bt := seen[t]; bt != nil {
		fmt.Fprintf(shape, "@%s", t)
		return bt, nil
	}
	bt := &binType{t: t, kind: t.Kind()}
	seen[t] = bt
	fmt.Fprintf(shape, "%s:%s", t, t.Kind())
	var err error
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int:
	case reflect.Slice, reflect.Pointer:
		shape.WriteString("(")
		bt.elem, err = newBinType(t.Elem(), seen, shape)
		shape.WriteString(")")
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Pointer {
			bt.block = reflect.SliceOf(t.Elem().Elem())
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("catalog type %s: map keys must be strings", t)
		}
		shape.WriteString("(")
		bt.elem, err = newBinType(t.Elem(), seen, shape)
		shape.WriteString(")")
	case reflect.Struct:
		shape.WriteString("{")
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if !f.IsExported() || tag == "-" {
				continue
			}
			_, opts, _ := strings.Cut(tag, ",")
			fmt.Fprintf(shape, "%s,%s=", f.Name, opts)
			ft, ferr := newBinType(f.Type, seen, shape)
			if ferr != nil {
				return nil, ferr
			}
			shape.WriteString(";")
			bt.fields = append(bt.fields, binField{index: i, omitEmpty: hasString(strings.Split(opts, ","), "omitempty"), t: ft})
		}
		shape.WriteString("}")
		if len(bt.fields) > 64 {
			return nil, fmt.Errorf("catalog type %s: more than 64 fields", t)
		}
	default:
		return nil, fmt.Errorf("catalog type %s: kind %s has no binary encoding", t, t.Kind())
	}
	return bt, err
}

// encodeCatalogBin writes c in the binary form parseCatalogBin reads.
func encodeCatalogBin(c *Catalog) ([]byte, error) {
	bt, sum, err := catalogBinType()
	if err != nil {
		return nil, err
	}
	buf := append([]byte(catalogBinMagic), sum[:]...)
	return bt.encode(buf, reflect.ValueOf(c).Elem(), false), nil
}

func (bt *binType) encode(buf []byte, v reflect.Value, omitEmpty bool) []byte {
	switch bt.kind {
	case reflect.String:
		buf = binary.AppendUvarint(buf, uint64(v.Len()))
		return append(buf, v.String()...)
	case reflect.Bool:
		if v.Bool() {
			return append(buf, 1)
		}
		return append(buf, 0)
	case reflect.Int:
		return binary.AppendVarint(buf, v.Int())
	case reflect.Pointer:
		if v.IsNil() {
			return append(buf, 0)
		}
		return bt.elem.encode(append(buf, 1), v.Elem(), false)
	case reflect.Slice:
		if v.IsNil() || omitEmpty && v.Len() == 0 {
			return append(buf, 0)
		}
		buf = binary.AppendUvarint(buf, uint64(v.Len())+1)
		for i := 0; i < v.Len(); i++ {
			buf = bt.elem.encode(buf, v.Index(i), false)
		}
		return buf
	case reflect.Map:
		if v.IsNil() || omitEmpty && v.Len() == 0 {
			return append(buf, 0)
		}
		buf = binary.AppendUvarint(buf, uint64(v.Len())+1)
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		for _, k := range keys {
			buf = binary.AppendUvarint(buf, uint64(len(k)))
			buf = append(buf, k...)
			buf = bt.elem.encode(buf, v.MapIndex(reflect.ValueOf(k).Convert(bt.t.Key())), false)
		}
		return buf
	default: // struct
		var mask uint64
		for i, f := range bt.fields {
			if f.set(v.Field(f.index)) {
				mask |= 1 << i
			}
		}
		buf = binary.AppendUvarint(buf, mask)
		for i, f := range bt.fields {
			if mask&(1<<i) == 0 {
				continue
			}
			fv := v.Field(f.index)
			switch f.t.kind {
			case reflect.Bool:
			case reflect.Pointer:
				buf = f.t.elem.encode(buf, fv.Elem(), false)
			default:
				buf = f.t.encode(buf, fv, f.omitEmpty)
			}
		}
		return buf
	}
}

// set reports whether the field's value v is written: not the zero value,
// and not an empty slice or map in an omitempty field.
func (f binField) set(v reflect.Value) bool {
	switch f.t.kind {
	case reflect.Slice, reflect.Map:
		return !v.IsNil() && (!f.omitEmpty || v.Len() > 0)
	}
	return !v.IsZero()
}

// parseCatalogBin decodes the binary form of a catalog and validates it
// (lazy: indexes it by name and builds each program when first looked up;
// see Catalog.lazy).
// The catalog's strings are data's: data is not copied.
func parseCatalogBin(data, name string, lazy bool) (*Catalog, error) {
	bt, sum, err := catalogBinType()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if !strings.HasPrefix(data, catalogBinMagic) {
		return nil, fmt.Errorf("%s: not a binary catalog (no %q header)", name, strings.TrimSpace(catalogBinMagic))
	}
	head := len(catalogBinMagic) + len(sum)
	if len(data) < head || data[len(catalogBinMagic):head] != string(sum[:]) {
		return nil, fmt.Errorf("%s: written for other catalog types: regenerate it (go generate ./classify)", name)
	}
	d := binDecoder{data: data, off: head}
	var c Catalog
	bt.decode(&d, reflect.ValueOf(&c).Elem(), false)
	if d.err == nil && d.off != len(data) {
		d.fail("%d bytes after the catalog", len(data)-d.off)
	}
	if d.err != nil {
		return nil, fmt.Errorf("%s: %w", name, d.err)
	}
	c.lazy = lazy
	if err := c.build(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

// binDecoder reads the binary form; the first error stops it.
type binDecoder struct {
	data string
	off  int
	err  error
}

func (d *binDecoder) fail(format string, a ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("offset %d: %s", d.off, fmt.Sprintf(format, a...))
	}
}

var errBinTruncated = errors.New("truncated")

// uvarint reads an unsigned varint; 0 once failed.
func (d *binDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	var x uint64
	for shift := uint(0); ; shift += 7 {
		if d.off >= len(d.data) {
			d.fail("%v", errBinTruncated)
			return 0
		}
		b := d.data[d.off]
		d.off++
		if shift == 63 && b > 1 {
			d.fail("varint overflows")
			return 0
		}
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x
		}
	}
}

// count reads a length plus one (0: nil) of elements that take at least a
// byte each, bounded by the bytes left.
func (d *binDecoder) count() (n int, isNil bool) {
	u := d.uvarint()
	if u == 0 || d.err != nil {
		return 0, true
	}
	if u-1 > uint64(len(d.data)-d.off) {
		d.fail("truncated: %d elements in %d bytes", u-1, len(d.data)-d.off)
		return 0, true
	}
	return int(u - 1), false
}

func (d *binDecoder) str() string {
	u := d.uvarint()
	if d.err != nil {
		return ""
	}
	if u > uint64(len(d.data)-d.off) {
		d.fail("truncated: a string of %d bytes in %d", u, len(d.data)-d.off)
		return ""
	}
	s := d.data[d.off : d.off+int(u)]
	d.off += int(u)
	return s
}

func (d *binDecoder) byte01() bool {
	if d.err != nil {
		return false
	}
	if d.off >= len(d.data) {
		d.fail("%v", errBinTruncated)
		return false
	}
	b := d.data[d.off]
	d.off++
	if b > 1 {
		d.fail("byte %d where 0 or 1 is expected", b)
	}
	return b == 1
}

// decode reads a value of bt into v (settable); it stops at the decoder's
// first error. In an omitempty field an empty list or map is written as
// nil, and only so.
func (bt *binType) decode(d *binDecoder, v reflect.Value, omitEmpty bool) {
	if d.err != nil {
		return
	}
	switch bt.kind {
	case reflect.String:
		if s := d.str(); s != "" {
			v.SetString(s)
		}
	case reflect.Bool:
		if d.byte01() {
			v.SetBool(true)
		}
	case reflect.Int:
		u := d.uvarint()
		x := int64(u >> 1)
		if u&1 != 0 {
			x = ^x
		}
		if v.OverflowInt(x) {
			d.fail("%d overflows %s", x, bt.t)
			return
		}
		v.SetInt(x)
	case reflect.Pointer:
		if !d.byte01() {
			return
		}
		p := reflect.New(bt.elem.t)
		bt.elem.decode(d, p.Elem(), false)
		v.Set(p)
	case reflect.Slice:
		n, isNil := d.count()
		if isNil {
			return
		}
		if n == 0 && omitEmpty {
			d.fail("an empty %s written as not nil", bt.t)
			return
		}
		s := reflect.MakeSlice(bt.t, n, n)
		if bt.block != nil {
			block := reflect.MakeSlice(bt.block, n, n)
			for i := 0; i < n && d.err == nil; i++ {
				if d.byte01() {
					e := block.Index(i)
					bt.elem.elem.decode(d, e, false)
					s.Index(i).Set(e.Addr())
				}
			}
		} else {
			for i := 0; i < n && d.err == nil; i++ {
				bt.elem.decode(d, s.Index(i), false)
			}
		}
		v.Set(s)
	case reflect.Map:
		n, isNil := d.count()
		if isNil {
			return
		}
		if n == 0 && omitEmpty {
			d.fail("an empty %s written as not nil", bt.t)
			return
		}
		m := reflect.MakeMapWithSize(bt.t, n)
		key := bt.t.Key()
		for i := 0; i < n && d.err == nil; i++ {
			k := reflect.ValueOf(d.str()).Convert(key)
			e := reflect.New(bt.elem.t).Elem()
			bt.elem.decode(d, e, false)
			if m.MapIndex(k).IsValid() {
				d.fail("key %q twice", k.String())
			}
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	default: // struct
		mask := d.uvarint()
		if len(bt.fields) < 64 && mask>>len(bt.fields) != 0 {
			d.fail("a %s with fields %#x set of %d", bt.t, mask, len(bt.fields))
			return
		}
		for mask != 0 && d.err == nil {
			f := &bt.fields[bits.TrailingZeros64(mask)]
			mask &= mask - 1
			fv := v.Field(f.index)
			switch f.t.kind {
			case reflect.Bool:
				fv.SetBool(true)
			case reflect.Pointer:
				p := reflect.New(f.t.elem.t)
				f.t.elem.decode(d, p.Elem(), false)
				fv.Set(p)
			default:
				f.t.decode(d, fv, f.omitEmpty)
			}
		}
	}
}
