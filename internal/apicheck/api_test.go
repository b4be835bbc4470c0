package apicheck

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/exp/apidiff"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

// api is one side of a comparison: the packages' types, and the
// normalized names (see norm) marked deprecated.
type api struct {
	mod        *apidiff.Module
	deprecated map[string]bool
}

// library reports whether pkgPath, in module mod, is a package whose API
// hosts may rely on.
func library(mod, pkgPath string) bool {
	rel, ok := strings.CutPrefix(pkgPath, mod+"/")
	if !ok {
		return pkgPath == mod
	}
	top, _, _ := strings.Cut(rel, "/")
	switch top {
	case "cmd", "examples", "bench", "fuzz":
		return false
	}
	return !slices.Contains(strings.Split(rel, "/"), "internal")
}

// loadEnv is the environment the API is recorded in: linux/amd64 with
// cgo, whatever the test's own target.
func loadEnv() []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == "GOOS" || k == "GOARCH" || k == "CGO_ENABLED" || k == "CC" || k == "CXX"
	})
	return append(env, "GOOS=linux", "GOARCH=amd64", "CGO_ENABLED=1")
}

// loadTree type-checks the library packages of the module at root.
func loadTree(root, mod string) (*api, error) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles, Dir: root, Env: loadEnv()}
	all, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("apicheck: listing packages: %w", err)
	}
	var paths []string
	for _, p := range all {
		if library(mod, p.PkgPath) && p.Name != "main" && len(p.GoFiles) > 0 {
			paths = append(paths, p.PkgPath)
		}
	}
	cfg.Mode = packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedImports
	pkgs, err := packages.Load(cfg, paths...)
	if err != nil {
		return nil, fmt.Errorf("apicheck: loading packages: %w", err)
	}
	a := &api{mod: &apidiff.Module{Path: mod}, deprecated: map[string]bool{}}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			return nil, fmt.Errorf("apicheck: %s: %v", p.PkgPath, e)
		}
		a.mod.Packages = append(a.mod.Packages, p.Types)
		markDeprecated(a.deprecated, mod, p.Types, p.Syntax, p.TypesInfo)
	}
	return a, nil
}

// deprecatedDoc reports whether doc has a paragraph starting
// "Deprecated: ", Go's convention.
func deprecatedDoc(doc *ast.CommentGroup) bool {
	if doc == nil {
		return false
	}
	for para := range strings.SplitSeq(doc.Text(), "\n\n") {
		if strings.HasPrefix(para, "Deprecated: ") {
			return true
		}
	}
	return false
}

// markDeprecated adds the exported names of pkg whose doc says
// "Deprecated:" (the package, types, funcs, methods, values, fields and
// interface methods) to set.
func markDeprecated(set map[string]bool, mod string, pkg *types.Package, files []*ast.File, info *types.Info) {
	mark := func(id *ast.Ident, suffix string) {
		if obj := info.Defs[id]; obj != nil && id.IsExported() {
			set[norm(objectName(mod, obj))+suffix] = true
		}
	}
	for _, f := range files {
		if deprecatedDoc(f.Doc) {
			set[norm(packageName(mod, pkg.Path()))] = true
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if deprecatedDoc(d.Doc) {
					mark(d.Name, "")
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						if deprecatedDoc(s.Doc) || !d.Lparen.IsValid() && deprecatedDoc(d.Doc) {
							for _, id := range s.Names {
								mark(id, "")
							}
						}
					case *ast.TypeSpec:
						if deprecatedDoc(s.Doc) || !d.Lparen.IsValid() && deprecatedDoc(d.Doc) {
							mark(s.Name, "")
						}
						var fields *ast.FieldList
						switch t := s.Type.(type) {
						case *ast.StructType:
							fields = t.Fields
						case *ast.InterfaceType:
							fields = t.Methods
						}
						for _, fl := range fieldList(fields) {
							if deprecatedDoc(fl.Doc) {
								for _, id := range fl.Names {
									if id.IsExported() {
										mark(s.Name, "."+id.Name)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

func fieldList(fl *ast.FieldList) []*ast.Field {
	if fl == nil {
		return nil
	}
	return fl.List
}

// packageName is apidiff's name for a package of module mod.
func packageName(mod, path string) string {
	if rel, ok := strings.CutPrefix(path, mod+"/"); ok {
		return "./" + rel
	}
	return path
}

// objectName is apidiff's name for obj: "./rt.Session",
// "./executor.(*Executor).Batch".
func objectName(mod string, obj types.Object) string {
	prefix := packageName(mod, obj.Pkg().Path()) + "."
	if f, ok := obj.(*types.Func); ok {
		if recv := f.Type().(*types.Signature).Recv(); recv != nil {
			tn := types.TypeString(recv.Type(), types.RelativeTo(obj.Pkg()))
			if tn[0] == '*' {
				tn = "(" + tn + ")"
			}
			return prefix + tn + "." + obj.Name()
		}
	}
	return prefix + obj.Name()
}

// norm is the name a changelog gives: apidiff's name without "./", a
// receiver's pointer and parentheses, or type parameters
// ("executor.Executor.Batch", "executor.Typed1.Call").
func norm(name string) string {
	name = strings.TrimPrefix(name, "./")
	var b strings.Builder
	depth := 0
	for _, r := range name {
		switch {
		case r == '[':
			depth++
		case r == ']':
			depth--
		case depth > 0 || r == '(' || r == ')' || r == '*':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// listing is the API as text, one exported name a line: its apidiff name,
// a tab, what it is, and a tab and "// Deprecated" where it is.
func listing(a *api) []string {
	var lines []string
	add := func(name, what string) {
		l := name + "\t" + what
		if a.deprecated[norm(name)] {
			l += "\t// Deprecated"
		}
		lines = append(lines, l)
	}
	for _, pkg := range a.mod.Packages {
		q := func(p *types.Package) string {
			if p == pkg {
				return ""
			}
			return strings.TrimPrefix(p.Path(), a.mod.Path+"/")
		}
		add(packageName(a.mod.Path, pkg.Path()), "package "+pkg.Name())
		scope := pkg.Scope()
		for _, n := range scope.Names() {
			obj := scope.Lookup(n)
			if !obj.Exported() {
				continue
			}
			name := objectName(a.mod.Path, obj)
			tn, ok := obj.(*types.TypeName)
			if !ok {
				what := types.ObjectString(obj, q)
				if c, ok := obj.(*types.Const); ok {
					what += " = " + c.Val().ExactString()
				}
				add(name, what)
				continue
			}
			switch u := tn.Type().Underlying().(type) {
			case *types.Struct:
				add(name, "type struct")
				for f := range u.Fields() {
					if f.Exported() {
						add(name+"."+f.Name(), "field "+types.TypeString(f.Type(), q))
					}
				}
			case *types.Interface:
				add(name, "type interface")
				for i := range u.NumExplicitMethods() {
					m := u.ExplicitMethod(i)
					if m.Exported() {
						add(name+"."+m.Name(), "method "+types.TypeString(m.Type(), q))
					}
				}
				for e := range u.EmbeddedTypes() {
					add(name, "embeds "+types.TypeString(e, q))
				}
			default:
				add(name, types.ObjectString(obj, q))
			}
			if named, ok := tn.Type().(*types.Named); ok && !tn.IsAlias() {
				for m := range named.Methods() {
					if m.Exported() {
						add(objectName(a.mod.Path, m), "method "+types.TypeString(m.Type(), q))
					}
				}
			}
		}
	}
	sort.Strings(lines)
	return lines
}

// write records a as file.export (apidiff's module export data, as
// `apidiff -m -w` writes it) and file.txt (its listing).
func write(a *api, file string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return fmt.Errorf("apicheck: %w", err)
	}
	f, err := os.Create(file + ".export")
	if err != nil {
		return fmt.Errorf("apicheck: %w", err)
	}
	fmt.Fprintln(f, a.mod.Path)
	err = gcexportdata.WriteBundle(f, token.NewFileSet(), a.mod.Packages)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("apicheck: writing %s.export: %w", file, err)
	}
	head := fmt.Sprintf("# The exported API of %s %s (linux/amd64, cgo), recorded by internal/apicheck.\n",
		a.mod.Path, filepath.Base(file))
	return os.WriteFile(file+".txt", []byte(head+strings.Join(listing(a), "\n")+"\n"), 0o644)
}

// read reads the API write recorded as file.export and file.txt.
func read(file string) (*api, error) {
	f, err := os.Open(file + ".export")
	if err != nil {
		return nil, fmt.Errorf("apicheck: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	mod, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("apicheck: %s.export: %w", file, err)
	}
	pkgs, err := gcexportdata.ReadBundle(r, token.NewFileSet(), map[string]*types.Package{})
	if err != nil {
		return nil, fmt.Errorf("apicheck: %s.export: %w", file, err)
	}
	text, err := os.ReadFile(file + ".txt")
	if err != nil {
		return nil, fmt.Errorf("apicheck: %w", err)
	}
	a := &api{mod: &apidiff.Module{Path: strings.TrimSuffix(mod, "\n"), Packages: pkgs}, deprecated: map[string]bool{}}
	for l := range strings.SplitSeq(string(text), "\n") {
		if name, _, _ := strings.Cut(l, "\t"); strings.HasSuffix(l, "\t// Deprecated") {
			a.deprecated[norm(name)] = true
		}
	}
	return a, nil
}
