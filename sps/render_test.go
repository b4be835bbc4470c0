package sps

import (
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// render prints a decoded Go value in the canonical text form that
// testdata/llvmgolden/golden.cpp prints for the LLVM value it decodes from
// the same bytes: integers decimal, byte strings "x"+hex, structs and tuples
// "(a,b)", sequences "[a,b]", Option none/some(x), SPSError ok/err(xMSG),
// Expected val(x)/err(xMSG), maps and the Setup lists sorted (LLVM keeps
// them in StringMaps). Reflection is fine here: this is test code.
func render(v any) string {
	var b strings.Builder
	if a, ok := v.(args); ok {
		b.WriteByte('(')
		for i, x := range a {
			if i > 0 {
				b.WriteByte(',')
			}
			renderValue(&b, reflect.ValueOf(x))
		}
		b.WriteByte(')')
		return b.String()
	}
	renderValue(&b, reflect.ValueOf(v))
	return b.String()
}

// args is a decoded wrapper argument list (two or more arguments).
type args []any

var (
	errorType = reflect.TypeFor[error]()
	setupType = reflect.TypeFor[SetupInfo]()
)

func renderBytes(b *strings.Builder, p []byte) {
	b.WriteByte('x')
	b.WriteString(hex.EncodeToString(p))
}

func renderValue(b *strings.Builder, v reflect.Value) {
	if !v.IsValid() {
		b.WriteString("ok") // a nil error
		return
	}
	t := v.Type()
	if t.Implements(errorType) {
		if (t.Kind() == reflect.Interface || t.Kind() == reflect.Pointer) && v.IsNil() {
			b.WriteString("ok")
			return
		}
		b.WriteString("err(")
		renderBytes(b, []byte(v.Interface().(error).Error()))
		b.WriteByte(')')
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		fmt.Fprint(b, v.Bool())
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		fmt.Fprint(b, v.Int())
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint, reflect.Uintptr:
		fmt.Fprint(b, v.Uint())
	case reflect.String:
		renderBytes(b, []byte(v.String()))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			renderBytes(b, v.Bytes())
			return
		}
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			renderValue(b, v.Index(i))
		}
		b.WriteByte(']')
	case reflect.Map:
		var es []string
		for it := v.MapRange(); it.Next(); {
			var e strings.Builder
			e.WriteByte('(')
			renderValue(&e, it.Key())
			e.WriteByte(',')
			renderValue(&e, it.Value())
			e.WriteByte(')')
			es = append(es, e.String())
		}
		renderSorted(b, es)
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		renderValue(b, v.Elem())
	case reflect.Struct:
		name := t.Name()
		switch {
		case t == setupType:
			renderSetup(b, v.Interface().(SetupInfo))
		case strings.HasPrefix(name, "Option["):
			if !v.FieldByName("OK").Bool() {
				b.WriteString("none")
				return
			}
			b.WriteString("some(")
			renderValue(b, v.FieldByName("Value"))
			b.WriteByte(')')
		case strings.HasPrefix(name, "Expected["):
			if e := v.FieldByName("Err"); !e.IsNil() {
				renderValue(b, e)
				return
			}
			b.WriteString("val(")
			renderValue(b, v.FieldByName("Value"))
			b.WriteByte(')')
		default:
			b.WriteByte('(')
			for i := range v.NumField() {
				if i > 0 {
					b.WriteByte(',')
				}
				renderValue(b, v.Field(i))
			}
			b.WriteByte(')')
		}
	default:
		panic("render: unsupported kind " + t.String())
	}
}

func renderSorted(b *strings.Builder, es []string) {
	slices.Sort(es)
	b.WriteByte('[')
	b.WriteString(strings.Join(es, ","))
	b.WriteByte(']')
}

func renderSetup(b *strings.Builder, s SetupInfo) {
	b.WriteByte('(')
	renderBytes(b, []byte(s.Triple))
	fmt.Fprintf(b, ",%d,", s.PageSize)
	var es []string
	for _, v := range s.Values {
		es = append(es, render(v))
	}
	renderSorted(b, es)
	b.WriteByte(',')
	es = es[:0]
	for _, v := range s.Symbols {
		es = append(es, render(v))
	}
	renderSorted(b, es)
	b.WriteByte(')')
}
