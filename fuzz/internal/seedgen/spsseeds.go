//go:build linux

package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log"
	"maps"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/orcgo/orcrt/fuzz/internal/seedgen/capture"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/sps"
)

const shapesFile = "fuzz/spsfuzz/shapes.go"

// use is one shape a payload is a seed for: the shape's name in
// spsfuzz's shapes, and how many leading payload bytes to drop (the
// instance argument of 14-19's lookup, to reach the arguments of 22's
// resolve; an initialize's instance, to reach its FinalizeRequest).
type use struct {
	shape string
	skip  int
}

// argShapes maps a bootstrap function (or allocation action) to the
// shapes its argument bytes decode as.
var argShapes = map[string][]use{
	capture.Reserve:      {{"args/reserve", 0}},
	capture.Initialize:   {{"args/initialize", 0}, {"finalize/reused", 8}, {"finalize/codec", 8}},
	capture.Finalize:     {{"args/initialize", 0}, {"finalize/reused", 8}, {"finalize/codec", 8}}, // 14-19, same arguments
	capture.Deinitialize: {{"args/deinitialize", 0}},
	capture.Release:      {{"args/deinitialize", 0}},
	capture.Deallocate:   {{"args/deinitialize", 0}}, // 14-19
	capture.Open:         {{"args/open", 0}},
	capture.Resolve:      {{"args/resolve", 0}},
	capture.Lookup:       {{"args/resolve", 8}}, // 14-19: Instance, then resolve's arguments

	"__llvm_orc_bootstrap_mem_write_uint8s_wrapper":   {{"args/write-uint8s", 0}},
	"__llvm_orc_bootstrap_mem_write_uint16s_wrapper":  {{"args/write-uint16s", 0}},
	"__llvm_orc_bootstrap_mem_write_uint32s_wrapper":  {{"args/write-uint32s", 0}},
	"__llvm_orc_bootstrap_mem_write_uint64s_wrapper":  {{"args/write-uint64s", 0}},
	"__llvm_orc_bootstrap_mem_write_pointers_wrapper": {{"args/write-pointers", 0}},
	"__llvm_orc_bootstrap_mem_write_buffers_wrapper":  {{"args/write-buffers", 0}},
	"__llvm_orc_bootstrap_mem_read_uint8s_wrapper":    {{"args/read", 0}},
	"__llvm_orc_bootstrap_mem_read_uint16s_wrapper":   {{"args/read", 0}},
	"__llvm_orc_bootstrap_mem_read_uint32s_wrapper":   {{"args/read", 0}},
	"__llvm_orc_bootstrap_mem_read_uint64s_wrapper":   {{"args/read", 0}},
	"__llvm_orc_bootstrap_mem_read_pointers_wrapper":  {{"args/read", 0}},
	"__llvm_orc_bootstrap_mem_read_strings_wrapper":   {{"args/read", 0}},
	"__llvm_orc_bootstrap_mem_read_buffers_wrapper":   {{"args/read-buffers", 0}},

	"__llvm_orc_bootstrap_run_as_main_wrapper":          {{"args/run-as-main", 0}},
	"__llvm_orc_bootstrap_run_as_void_function_wrapper": {{"args/run-as-void", 0}},
	"__llvm_orc_bootstrap_run_as_int_function_wrapper":  {{"args/run-as-int", 0}},

	"llvm_orc_registerEHFrameAllocAction":                     {{"args/ehframe", 0}},
	"llvm_orc_deregisterEHFrameAllocAction":                   {{"args/ehframe", 0}},
	capture.RegisterEHFrame:                                   {{"args/ehframe", 0}}, // 19, and 14's process lookup
	capture.DeregisterEHFrame:                                 {{"args/ehframe", 0}},
	"__llvm_orc_bootstrap_register_ehframe_section_wrapper":   {{"args/ehframe", 0}},
	"__llvm_orc_bootstrap_deregister_ehframe_section_wrapper": {{"args/ehframe", 0}},
	capture.GDBAllocAction:                                    {{"args/gdb", 0}},
	// capture.GDBWrapper: by release, in gdbWrapperUse.

	capture.ShmReserve:      {{"args/reserve", 0}},
	capture.ShmInitialize:   {{"args/shm-initialize", 0}},
	capture.ShmDeinitialize: {{"args/deinitialize", 0}},
	capture.ShmRelease:      {{"args/deinitialize", 0}},
}

// gdbWrapperUse: 19's wrapper takes (range, bool), 14-16's the range
// alone.
func gdbWrapperUse(d *dialect.Dialect) use {
	if d == dialect.LLVM14 {
		return use{"args/ehframe", 0}
	}
	return use{"args/gdb", 0}
}

// retShapes maps a bootstrap function to the shape of its result, where
// spsfuzz has one (14-19's lookup results have none).
var retShapes = map[string]string{
	capture.Reserve:      "ret/expected-addr",
	capture.Initialize:   "ret/expected-addr",
	capture.Finalize:     "ret/error",
	capture.Deinitialize: "ret/error",
	capture.Release:      "ret/error",
	capture.Deallocate:   "ret/error",
	capture.Open:         "ret/expected-addr",
	capture.Resolve:      "ret/resolve",

	"__llvm_orc_bootstrap_mem_write_uint8s_wrapper":   "ret/void",
	"__llvm_orc_bootstrap_mem_write_uint16s_wrapper":  "ret/void",
	"__llvm_orc_bootstrap_mem_write_uint32s_wrapper":  "ret/void",
	"__llvm_orc_bootstrap_mem_write_uint64s_wrapper":  "ret/void",
	"__llvm_orc_bootstrap_mem_write_pointers_wrapper": "ret/void",
	"__llvm_orc_bootstrap_mem_write_buffers_wrapper":  "ret/void",
	"__llvm_orc_bootstrap_mem_read_uint8s_wrapper":    "ret/read-uint8s",
	"__llvm_orc_bootstrap_mem_read_uint16s_wrapper":   "ret/read-uint16s",
	"__llvm_orc_bootstrap_mem_read_uint32s_wrapper":   "ret/read-uint32s",
	"__llvm_orc_bootstrap_mem_read_uint64s_wrapper":   "ret/read-uint64s",
	"__llvm_orc_bootstrap_mem_read_pointers_wrapper":  "ret/read-pointers",
	"__llvm_orc_bootstrap_mem_read_buffers_wrapper":   "ret/read-buffers",
	"__llvm_orc_bootstrap_mem_read_strings_wrapper":   "ret/read-strings",

	"__llvm_orc_bootstrap_run_as_main_wrapper":          "ret/run-as-main",
	"__llvm_orc_bootstrap_run_as_void_function_wrapper": "ret/i32",
	"__llvm_orc_bootstrap_run_as_int_function_wrapper":  "ret/i32",

	capture.RegisterEHFrame:   "ret/error",
	capture.DeregisterEHFrame: "ret/error",
	capture.GDBWrapper:        "ret/error",

	capture.ShmReserve:      "ret/shm-reserve",
	capture.ShmInitialize:   "ret/expected-addr",
	capture.ShmDeinitialize: "ret/error",
	capture.ShmRelease:      "ret/error",
}

// shapeIndexes reads the order of spsfuzz's shapes from its source: the
// first input byte is an index into that list, which lives in a test
// file this command cannot import.
func shapeIndexes() (map[string]int, error) {
	f, err := parser.ParseFile(token.NewFileSet(), shapesFile, nil, 0)
	if err != nil {
		return nil, err
	}
	var list *ast.CompositeLit
	vars := map[string]ast.Expr{} // single-value var declarations, by name
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && len(vs.Values) == 1 {
			vars[vs.Names[0].Name] = vs.Values[0]
			if vs.Names[0].Name == "shapes" {
				list, _ = vs.Values[0].(*ast.CompositeLit)
			}
		}
		return true
	})
	if list == nil {
		return nil, fmt.Errorf("%s: no shapes list", shapesFile)
	}
	idx := map[string]int{}
	for i, e := range list.Elts {
		if id, ok := e.(*ast.Ident); ok && vars[id.Name] != nil { // a shape declared apart
			e = vars[id.Name]
		}
		var lit ast.Expr
		switch e := e.(type) {
		case *ast.CallExpr: // codecShape("name", ...), argsN("name", ...)
			// A method chain (codecShape(...).seeded(...)): the
			// constructor is the innermost call.
			for {
				sel, ok := e.Fun.(*ast.SelectorExpr)
				if !ok {
					break
				}
				inner, ok := sel.X.(*ast.CallExpr)
				if !ok {
					break
				}
				e = inner
			}
			if len(e.Args) > 0 {
				lit = e.Args[0]
			}
		case *ast.CompositeLit: // shape{name: "name", ...}
			for _, kv := range e.Elts {
				if kv, ok := kv.(*ast.KeyValueExpr); ok {
					if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "name" {
						lit = kv.Value
					}
				}
			}
		}
		bl, ok := lit.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			return nil, fmt.Errorf("%s: shape %d has no literal name", shapesFile, i)
		}
		name, err := strconv.Unquote(bl.Value)
		if err != nil {
			return nil, err
		}
		idx[name] = i
	}
	if len(idx) > 256 {
		return nil, fmt.Errorf("%s: %d shapes do not fit the index byte", shapesFile, len(idx))
	}
	return idx, nil
}

func writeSPSSeeds(sessions []*capture.Session, rels []int) error {
	idx, err := shapeIndexes()
	if err != nil {
		return err
	}
	// Every shape named here must exist: a renamed shape would silently
	// lose its seeds otherwise.
	names := append(slices.Collect(maps.Values(retShapes)), "setup", "map-entries", "args/gdb")
	for uses := range maps.Values(argShapes) {
		for _, u := range uses {
			names = append(names, u.shape)
		}
	}
	for _, name := range names {
		if _, ok := idx[name]; !ok {
			return fmt.Errorf("%s has no shape %q", shapesFile, name)
		}
	}
	var seeds []capture.Seed
	add := func(s *capture.Session, shape string, payload []byte) {
		if len(payload) <= capture.MaxPayload {
			seeds = append(seeds, capture.Seed{Session: s.Name, Data: append([]byte{byte(idx[shape])}, payload...)})
		}
	}
	addArgs := func(s *capture.Session, name string, payload []byte) {
		uses := argShapes[name]
		if name == capture.GDBWrapper {
			uses = []use{gdbWrapperUse(s.Dialect)}
		}
		for _, u := range uses {
			if len(payload) >= u.skip {
				add(s, u.shape, payload[u.skip:])
			}
		}
	}
	unnamed := 0
	for _, s := range sessions {
		if s.Dialect.SetupBootstrapMap {
			add(s, "setup", s.SetupRaw) // 14-16's Setup has another layout
		}
		add(s, "map-entries", s.SetupRaw[symbolsOffset(s):])
		for _, c := range s.Calls {
			if c.Name == "" {
				unnamed++
				continue
			}
			addArgs(s, c.Name, c.Payload)
			for _, a := range c.Actions() {
				for _, w := range []sps.WrapperCall{a.Finalize, a.Dealloc} {
					if n := s.Names[w.Fn]; n != "" {
						addArgs(s, n, w.Args)
					}
				}
			}
			if shape, ok := retShapes[c.Name]; ok && c.Result != nil {
				add(s, shape, c.Result)
			}
		}
	}
	if unnamed > 0 {
		log.Printf("spsfuzz: %d calls of unknown functions skipped", unnamed)
	}
	for _, target := range []string{"FuzzDecode", "FuzzRoundTrip", "FuzzDiff"} {
		dir := filepath.Join("fuzz/spsfuzz/testdata/fuzz", target)
		n, size, err := capture.WriteCorpus(dir, rels, seeds)
		if err != nil {
			return err
		}
		log.Printf("%s: %d seeds, %d bytes", dir, n, size)
	}
	return nil
}

// symbolsOffset is where Setup's symbol list starts: after the triple,
// the page size and (where the dialect has one) the bootstrap map.
func symbolsOffset(s *capture.Session) int {
	off := 8 + len(s.Setup.Triple) + 8
	if s.Dialect.SetupBootstrapMap {
		off += 8
		for _, v := range s.Setup.Values {
			off += 8 + len(v.Name) + 8 + len(v.Value)
		}
	}
	return off
}
