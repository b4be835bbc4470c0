package spsfuzz

import (
	"encoding/hex"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// render prints a decoded Go value in the reference decoder's text form:
// integers decimal, byte strings "x"+hex, structs and tuples "(a,b)",
// sequences "[a,b]" (in wire order), Go maps "[(k,v),...]" sorted by
// entry text (as the reference renders an unordered map), Option
// none/some(x), SPSError ok/err(xMSG), Expected val(x)/err(xMSG).
// Reflection is fine in a fuzz harness.
func render(v any) string {
	var b strings.Builder
	if a, ok := v.(argList); ok {
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

var errorType = reflect.TypeFor[error]()

func renderValue(b *strings.Builder, v reflect.Value) {
	if !v.IsValid() {
		b.WriteString("ok")
		return
	}
	t := v.Type()
	if t.Implements(errorType) {
		if (t.Kind() == reflect.Interface || t.Kind() == reflect.Pointer) && v.IsNil() {
			b.WriteString("ok")
			return
		}
		b.WriteString("err(x")
		b.WriteString(hex.EncodeToString([]byte(v.Interface().(error).Error())))
		b.WriteByte(')')
		return
	}
	switch t.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.String:
		b.WriteByte('x')
		b.WriteString(hex.EncodeToString([]byte(v.String())))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			b.WriteByte('x')
			b.WriteString(hex.EncodeToString(v.Bytes()))
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
		entries := make([]string, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			var e strings.Builder
			e.WriteByte('(')
			renderValue(&e, it.Key())
			e.WriteByte(',')
			renderValue(&e, it.Value())
			e.WriteByte(')')
			entries = append(entries, e.String())
		}
		slices.Sort(entries)
		b.WriteByte('[')
		b.WriteString(strings.Join(entries, ","))
		b.WriteByte(']')
	case reflect.Interface:
		renderValue(b, v.Elem())
	case reflect.Struct:
		name := t.Name()
		switch {
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
