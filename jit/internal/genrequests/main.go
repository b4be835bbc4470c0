// Command genrequests makes package jit's request table
// (jit/requests_gen.go) and the controller's (jit/controller/requests.inc)
// from jit/requests.txt. `go generate ./jit/...` runs it in jit.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"go/format"
	"os"
	"strconv"
	"strings"
	"unicode"
)

// Outputs, relative to package jit.
const (
	sourcePath = "requests.txt"
	goPath     = "requests_gen.go"
	cppPath    = "controller/requests.inc"
)

func main() {
	dir := flag.String("dir", ".", "package jit's directory")
	flag.Parse()
	outs, err := generate(*dir)
	if err == nil {
		for path, b := range outs {
			if err = os.WriteFile(*dir+"/"+path, b, 0o644); err != nil {
				break
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genrequests:", err)
		os.Exit(1)
	}
}

// generate reads dir's requests.txt and returns each output's content.
func generate(dir string) (map[string][]byte, error) {
	src, err := os.ReadFile(dir + "/" + sourcePath)
	if err != nil {
		return nil, err
	}
	t, err := parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("%s:%w", sourcePath, err)
	}
	if h := t.hash(); h != t.hashRecorded {
		return nil, fmt.Errorf("%s: the table changed (its hash is %s, version %d records %s): "+
			"write `version %d %s` if the controller and package jit no longer agree with the previous one, "+
			"or restore the table", sourcePath, h, t.version, t.hashRecorded, t.version+1, h)
	}
	g, err := t.goFile()
	if err != nil {
		return nil, err
	}
	return map[string][]byte{goPath: g, cppPath: t.cppFile()}, nil
}

// A typ is a type of the table: a base name, a declared name, or a
// sequence, expected value or tuple of elem.
type typ struct {
	kind string // base, named, seq, expected, tuple, empty
	name string
	elem []*typ
}

type decl struct {
	doc  []string
	name string
	typ  *typ // type
	wire string
	args []*typ // request, call
	ret  *typ
	// enum
	base   string
	values []enumValue
}

type enumValue struct {
	name  string
	value int
}

type table struct {
	version      int
	hashRecorded string
	enums        []*decl
	types        []*decl
	requests     []*decl
	calls        []*decl
	named        map[string]*decl
	expand       bool // cppType spells declared types out (hash)
}

var bases = map[string]bool{"string": true, "bool": true, "u8": true, "u32": true, "u64": true, "addr": true, "bytes": true, "error": true}

func parse(src string) (*table, error) {
	t := &table{named: map[string]*decl{}, version: -1}
	var doc []string
	seen := map[string]bool{}
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			doc = nil
			continue
		}
		if rest, ok := strings.CutPrefix(line, "#"); ok {
			doc = append(doc, strings.TrimPrefix(rest, " "))
			continue
		}
		d, err := t.parseLine(line)
		if err == nil && d != nil && seen[d.name] {
			err = fmt.Errorf("%s declared twice", d.name)
		}
		if err != nil {
			return nil, fmt.Errorf("%d: %w", i+1, err)
		}
		if d != nil {
			seen[d.name] = true
			d.doc = doc
		}
		doc = nil
	}
	if t.version < 0 {
		return nil, fmt.Errorf(" no version line")
	}
	return t, nil
}

func (t *table) parseLine(line string) (*decl, error) {
	word, rest, _ := strings.Cut(line, " ")
	f := strings.Fields(rest)
	switch word {
	case "version":
		v, err := strconv.Atoi(f[0])
		if len(f) != 2 || err != nil || t.version >= 0 {
			return nil, fmt.Errorf("want one `version N HASH`")
		}
		t.version, t.hashRecorded = v, f[1]
		return nil, nil
	case "enum":
		if len(f) < 3 || f[1] != "u8" {
			return nil, fmt.Errorf("want `enum NAME u8 VALUE=N ...`")
		}
		d := &decl{name: f[0], base: f[1]}
		for _, kv := range f[2:] {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.Atoi(v)
			if err != nil || k == "" {
				return nil, fmt.Errorf("enum value %q: want NAME=N", kv)
			}
			d.values = append(d.values, enumValue{k, n})
		}
		t.enums = append(t.enums, d)
		return d, nil
	case "type":
		if len(f) < 2 {
			return nil, fmt.Errorf("want `type NAME TYPE`")
		}
		p := &parser{s: strings.TrimSpace(strings.TrimPrefix(rest, f[0])), t: t}
		ty, err := p.whole()
		if err != nil {
			return nil, err
		}
		if ty.kind != "tuple" {
			return nil, fmt.Errorf("type %s: only tuples are named", f[0])
		}
		d := &decl{name: f[0], typ: ty}
		t.types = append(t.types, d)
		t.named[d.name] = d
		return d, nil
	case "request", "call":
		if len(f) < 3 {
			return nil, fmt.Errorf("want `%s NAME WIRE-NAME (ARGS) -> RESULT`", word)
		}
		sig, ret, ok := strings.Cut(strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(rest, f[0]), " "+f[1])), "->")
		if !ok {
			return nil, fmt.Errorf("%s: no -> RESULT", f[0])
		}
		d := &decl{name: f[0], wire: f[1]}
		p := &parser{s: strings.TrimSpace(sig), t: t}
		args, err := p.whole()
		if err != nil {
			return nil, err
		}
		switch args.kind {
		case "empty":
		case "tuple":
			d.args = args.elem
		default:
			d.args = []*typ{args}
		}
		if len(d.args) > 3 {
			return nil, fmt.Errorf("%s: at most 3 arguments (sps.Func3): nest the rest in a tuple", d.name)
		}
		p = &parser{s: strings.TrimSpace(ret), t: t}
		if d.ret, err = p.whole(); err != nil {
			return nil, err
		}
		if word == "request" {
			t.requests = append(t.requests, d)
		} else {
			t.calls = append(t.calls, d)
		}
		return d, nil
	}
	return nil, fmt.Errorf("unknown declaration %q", word)
}

type parser struct {
	s string
	t *table
}

func (p *parser) whole() (*typ, error) {
	ty, err := p.typ()
	if err == nil && strings.TrimSpace(p.s) != "" {
		err = fmt.Errorf("unexpected %q", p.s)
	}
	return ty, err
}

func (p *parser) typ() (*typ, error) {
	p.s = strings.TrimLeft(p.s, " ")
	switch {
	case strings.HasPrefix(p.s, "("):
		p.s = p.s[1:]
		ty := &typ{kind: "tuple"}
		for {
			p.s = strings.TrimLeft(p.s, " ")
			if strings.HasPrefix(p.s, ")") && len(ty.elem) == 0 {
				p.s = p.s[1:]
				return &typ{kind: "empty"}, nil
			}
			e, err := p.typ()
			if err != nil {
				return nil, err
			}
			ty.elem = append(ty.elem, e)
			p.s = strings.TrimLeft(p.s, " ")
			if strings.HasPrefix(p.s, ")") {
				p.s = p.s[1:]
				break
			}
			if !strings.HasPrefix(p.s, ",") {
				return nil, fmt.Errorf("want , or ) at %q", p.s)
			}
			p.s = p.s[1:]
		}
		if len(ty.elem) > 3 {
			return nil, fmt.Errorf("a tuple of %d: sps has Tuple2 and Tuple3, nest the rest", len(ty.elem))
		}
		if len(ty.elem) == 1 {
			return ty.elem[0], nil
		}
		return ty, nil
	case strings.HasPrefix(p.s, "["):
		p.s = p.s[1:]
		e, err := p.typ()
		if err != nil {
			return nil, err
		}
		if p.s = strings.TrimLeft(p.s, " "); !strings.HasPrefix(p.s, "]") {
			return nil, fmt.Errorf("want ] at %q", p.s)
		}
		p.s = p.s[1:]
		return &typ{kind: "seq", elem: []*typ{e}}, nil
	}
	n := strings.IndexFunc(p.s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if n < 0 {
		n = len(p.s)
	}
	word := p.s[:n]
	p.s = p.s[n:]
	switch {
	case word == "expected":
		e, err := p.typ()
		if err != nil {
			return nil, err
		}
		return &typ{kind: "expected", elem: []*typ{e}}, nil
	case bases[word]:
		return &typ{kind: "base", name: word}, nil
	case p.t.named[word] != nil:
		return &typ{kind: "named", name: word}, nil
	}
	return nil, fmt.Errorf("unknown type %q", word)
}

// Go: each type's codec expression and Go type.
var goBase = map[string][2]string{
	"string": {"sps.String", "string"},
	"bool":   {"sps.Bool", "bool"},
	"u8":     {"sps.U8", "uint8"},
	"u32":    {"sps.U32", "uint32"},
	"u64":    {"sps.U64", "uint64"},
	"addr":   {"sps.AddrCodec", "sps.Addr"},
	"bytes":  {"sps.BytesView", "[]byte"},
	"error":  {"sps.ErrorCodec", "error"},
}

func (ty *typ) goCodec() string {
	switch ty.kind {
	case "base":
		return goBase[ty.name][0]
	case "named":
		return ty.name + "Codec"
	case "empty":
		return "sps.Empty"
	case "seq":
		return "sps.Seq(" + ty.elem[0].goCodec() + ")"
	case "expected":
		return "sps.ExpectedOf(" + ty.elem[0].goCodec() + ")"
	}
	var parts []string
	for _, e := range ty.elem {
		parts = append(parts, e.goCodec())
	}
	return fmt.Sprintf("sps.Tuple%d(%s)", len(parts), strings.Join(parts, ", "))
}

func (ty *typ) goType() string {
	switch ty.kind {
	case "base":
		return goBase[ty.name][1]
	case "named":
		return ty.name
	case "empty":
		return "struct{}"
	case "seq":
		return "[]" + ty.elem[0].goType()
	case "expected":
		return "sps.Expected[" + ty.elem[0].goType() + "]"
	}
	var parts []string
	for _, e := range ty.elem {
		parts = append(parts, e.goType())
	}
	return map[int]string{2: "sps.Pair", 3: "sps.Triple"}[len(parts)] + "[" + strings.Join(parts, ", ") + "]"
}

// C++: SPS tag types, tuples flattened.
var cppBase = map[string]string{
	"string": "SPSString", "bool": "bool", "u8": "uint8_t", "u32": "uint32_t", "u64": "uint64_t",
	"addr": "SPSExecutorAddr", "bytes": "SPSSequence<char>", "error": "SPSError",
}

func (t *table) cppType(ty *typ) string {
	switch ty.kind {
	case "base":
		return cppBase[ty.name]
	case "named":
		if t.expand {
			return t.cppType(t.named[ty.name].typ)
		}
		return "SPS" + export(ty.name)
	case "empty":
		return "SPSEmpty"
	case "seq":
		return "SPSSequence<" + t.cppType(ty.elem[0]) + ">"
	case "expected":
		return "SPSExpected<" + t.cppType(ty.elem[0]) + ">"
	}
	return "SPSTuple<" + strings.Join(t.cppFlat(ty.elem), ", ") + ">"
}

// cppFlat lists the SPS types of elems, a tuple's (or a declared tuple
// type's) elements in its place.
func (t *table) cppFlat(elems []*typ) []string {
	var out []string
	for _, e := range elems {
		switch {
		case e.kind == "tuple":
			out = append(out, t.cppFlat(e.elem)...)
		case e.kind == "named":
			out = append(out, t.cppFlat(t.named[e.name].typ.elem)...)
		default:
			out = append(out, t.cppType(e))
		}
	}
	return out
}

func (t *table) cppSig(d *decl) string {
	ret := "void"
	if d.ret.kind != "empty" {
		ret = t.cppType(d.ret)
	}
	return ret + "(" + strings.Join(t.cppFlat(d.args), ", ") + ")"
}

// hash is that of the table as it travels (no names but the bootstrap
// ones): a change to it changes what a controller and a Go host must
// agree on.
func (t *table) hash() string {
	t.expand = true
	defer func() { t.expand = false }()
	var b strings.Builder
	for _, d := range t.enums {
		fmt.Fprintf(&b, "enum %s", d.base)
		for _, v := range d.values {
			fmt.Fprintf(&b, " %d", v.value)
		}
		b.WriteString("\n")
	}
	for _, d := range append(append([]*decl{}, t.requests...), t.calls...) {
		fmt.Fprintf(&b, "%s %s\n", d.wire, t.cppSig(d))
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

func export(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

func writeDoc(b *bytes.Buffer, doc []string, indent string) {
	for _, l := range doc {
		fmt.Fprintf(b, "%s// %s\n", indent, l)
	}
}

func (t *table) goFile() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by jit/internal/genrequests from jit/%s; DO NOT EDIT.\n\n", sourcePath)
	b.WriteString("//go:build linux && cgo\n\npackage jit\n\nimport \"github.com/orcgo/orcrt/sps\"\n\n")
	fmt.Fprintf(&b, "// controllerProtocol is the version of the requests (table hash %s);\n", t.hashRecorded)
	b.WriteString("// a controller built from other sources announces another and is refused.\n")
	fmt.Fprintf(&b, "const controllerProtocol = %d\n\n", t.version)
	for _, d := range t.enums {
		writeDoc(&b, d.doc, "")
		b.WriteString("const (\n")
		for _, v := range d.values {
			fmt.Fprintf(&b, "\t%s%s %s = %d\n", d.name, v.name, goBase[d.base][1], v.value)
		}
		b.WriteString(")\n\n")
	}
	for _, d := range t.types {
		writeDoc(&b, d.doc, "")
		fmt.Fprintf(&b, "type %s = %s\n\nvar %sCodec = %s\n\n", d.name, d.typ.goType(), d.name, d.typ.goCodec())
	}
	if len(t.requests) > 0 {
		writeDoc(&b, t.requests[0].doc, "")
	}
	b.WriteString("const (\n")
	for i, d := range t.requests {
		fmt.Fprintf(&b, "\ttag%s", export(d.name))
		if i == 0 {
			b.WriteString(" = iota")
		}
		b.WriteString("\n")
	}
	b.WriteString("\tnumTags\n)\n\nvar tagNames = [numTags]string{\n")
	for _, d := range t.requests {
		fmt.Fprintf(&b, "\t%q,\n", d.wire)
	}
	b.WriteString("}\n\n")
	for _, d := range t.calls {
		writeDoc(&b, d.doc, "")
		fmt.Fprintf(&b, "const %sSymbol = %q\n\n", d.name, d.wire)
	}
	b.WriteString("// The signatures, the controller's flattened (jit/requests.txt).\nvar (\n")
	for _, d := range append(append([]*decl{}, t.requests...), t.calls...) {
		var params, fields []string
		for i, a := range d.args {
			params = append(params, a.goType())
			fields = append(fields, fmt.Sprintf("Arg%d: %s", i+1, a.goCodec()))
		}
		params = append(params, d.ret.goType())
		fields = append(fields, "Ret: "+d.ret.goCodec())
		fmt.Fprintf(&b, "\t%sSig = sps.Func%d[%s]{%s}\n", d.name, len(d.args), strings.Join(params, ", "), strings.Join(fields, ", "))
	}
	b.WriteString(")\n")
	return format.Source(b.Bytes())
}

func (t *table) cppFile() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by jit/internal/genrequests from jit/%s; DO NOT EDIT.\n", sourcePath)
	b.WriteString("// The requests of package jit (docs/protocol.md §11), for controller.cpp.\n")
	b.WriteString("// clang-format off\n\n#ifndef ORCRT_JIT_REQUESTS_INC\n#define ORCRT_JIT_REQUESTS_INC\n\n")
	b.WriteString("#include \"llvm/ExecutionEngine/Orc/Shared/ExecutorAddress.h\"\n")
	b.WriteString("#include \"llvm/ExecutionEngine/Orc/Shared/SimplePackedSerialization.h\"\n")
	b.WriteString("#include \"llvm/ExecutionEngine/Orc/Shared/WrapperFunctionUtils.h\"\n\n")
	b.WriteString("#include <cstddef>\n#include <cstdint>\n\nnamespace orcrt::wire {\n\nusing namespace llvm::orc::shared;\n\n")
	fmt.Fprintf(&b, "// ProtocolVersion is the version of the requests (table hash %s): package\n", t.hashRecorded)
	b.WriteString("// jit's controllerProtocol, announced to the Go side.\n")
	fmt.Fprintf(&b, "constexpr uint32_t ProtocolVersion = %d;\n\n", t.version)
	for _, d := range t.enums {
		writeDoc(&b, d.doc, "")
		for _, v := range d.values {
			fmt.Fprintf(&b, "constexpr uint8_t %s%s = %d;\n", export(d.name), v.name, v.value)
		}
		b.WriteString("\n")
	}
	for _, d := range t.types {
		writeDoc(&b, d.doc, "")
		fmt.Fprintf(&b, "using SPS%s = %s;\n\n", export(d.name), t.cppType(d.typ))
	}
	if len(t.requests) > 0 {
		writeDoc(&b, t.requests[0].doc, "")
	}
	b.WriteString("// Each is a struct with its bootstrap Name and SPS Sig; RequestNames\n// lists them in package jit's order.\n")
	for _, d := range t.requests {
		fmt.Fprintf(&b, "struct %s {\n  static constexpr const char *Name = %q;\n  using Sig = %s;\n};\n", export(d.name), d.wire, t.cppSig(d))
	}
	fmt.Fprintf(&b, "\nconstexpr size_t NumRequests = %d;\nconstexpr const char *RequestNames[NumRequests] = {\n", len(t.requests))
	for _, d := range t.requests {
		fmt.Fprintf(&b, "    %q,\n", d.wire)
	}
	b.WriteString("};\n\n")
	for _, d := range t.calls {
		writeDoc(&b, d.doc, "")
		fmt.Fprintf(&b, "struct %s {\n  static constexpr const char *Name = %q;\n  using Sig = %s;\n};\n\n", export(d.name), d.wire, t.cppSig(d))
	}
	b.WriteString("} // namespace orcrt::wire\n\n#endif // ORCRT_JIT_REQUESTS_INC\n")
	return b.Bytes()
}
