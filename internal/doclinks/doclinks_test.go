// Package doclinks checks that every doc link ([Name], [pkg.Name],
// [Type.Method], [path/to/pkg]) in the module's doc comments names
// something that exists: go doc renders a link that does not resolve as
// plain text, so a rename leaves it dangling silently.
package doclinks

import (
	"go/ast"
	"go/build"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/orcgo/orcrt"

// notLinks are bracketed words that are not meant as links (go doc
// leaves them as text because nothing has their name).
var notLinks = map[string]bool{
	"bench/cmd/benchgate: [N]": true, // a placeholder in an entry's syntax
}

// names is what a package declares: top-level names, and "T.M" for the
// methods and fields of its types.
type names map[string]bool

func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cache := map[string]names{}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		base := d.Name()
		if path != root && (base == "testdata" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || exists(filepath.Join(path, "go.mod"))) {
			return filepath.SkipDir
		}
		fset := token.NewFileSet()
		files := parseDir(t, fset, path)
		if len(files) == 0 {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		importPath := filepath.ToSlash(filepath.Join(module, rel))
		pkg, err := doc.NewFromFiles(fset, files, importPath, doc.PreserveAST)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		own := declared(files)
		cache[importPath] = own
		p := pkg.Parser()
		p.LookupSym = func(recv, name string) bool { return true } // resolved below
		for _, f := range files {
			for _, cg := range docComments(f) {
				for _, l := range links(p.Parse(cg.Text())) {
					if l.Name == "" && l.ImportPath == "" || notLinks[filepath.ToSlash(rel)+": ["+linkText(l)+"]"] {
						continue
					}
					checked++
					if msg := resolve(l, importPath, own, root, cache); msg != "" {
						t.Errorf("%s: doc link [%s]: %s", fset.Position(cg.Pos()), linkText(l), msg)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no doc links found: the walk is broken")
	}
	t.Logf("%d doc links resolved", checked)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// parseDir parses the non-test Go files of dir with their comments (all
// of them, whatever their build constraints).
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// docComments returns f's doc comments: the package's, the declarations',
// and those of specs, fields and interface methods.
func docComments(f *ast.File) []*ast.CommentGroup {
	var out []*ast.CommentGroup
	add := func(cg *ast.CommentGroup) {
		if cg != nil {
			out = append(out, cg)
		}
	}
	add(f.Doc)
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			add(n.Doc)
			return false
		case *ast.GenDecl:
			add(n.Doc)
		case *ast.TypeSpec:
			add(n.Doc)
		case *ast.ValueSpec:
			add(n.Doc)
		case *ast.Field:
			add(n.Doc)
		}
		return true
	})
	return out
}

// declared collects the names files declare.
func declared(files []*ast.File) names {
	ns := names{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					ns[d.Name.Name] = true
				} else {
					ns[recvName(d.Recv.List[0].Type)+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						ns[s.Name.Name] = true
						members(ns, s.Name.Name, s.Type)
					case *ast.ValueSpec:
						for _, n := range s.Names {
							ns[n.Name] = true
						}
					}
				}
			}
		}
	}
	return ns
}

// members records the fields of a struct and the methods of an interface.
func members(ns names, typ string, e ast.Expr) {
	var fl *ast.FieldList
	switch e := e.(type) {
	case *ast.StructType:
		fl = e.Fields
	case *ast.InterfaceType:
		fl = e.Methods
	default:
		return
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			ns[typ+"."+n.Name] = true
		}
		if len(f.Names) == 0 { // embedded: its name is a field
			ns[typ+"."+recvName(f.Type)] = true
		}
	}
}

func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// links returns the doc links in d.
func links(d *comment.Doc) []*comment.DocLink {
	var out []*comment.DocLink
	var walk func(ts []comment.Text)
	walk = func(ts []comment.Text) {
		for _, t := range ts {
			switch t := t.(type) {
			case *comment.DocLink:
				out = append(out, t)
			case *comment.Link:
				walk(t.Text)
			case *comment.Italic, comment.Plain:
			}
		}
	}
	for _, b := range d.Content {
		switch b := b.(type) {
		case *comment.Paragraph:
			walk(b.Text)
		case *comment.Heading:
			walk(b.Text)
		case *comment.List:
			for _, it := range b.Items {
				for _, c := range it.Content {
					if p, ok := c.(*comment.Paragraph); ok {
						walk(p.Text)
					}
				}
			}
		}
	}
	return out
}

func linkText(l *comment.DocLink) string {
	s := l.Name
	if l.Recv != "" {
		s = l.Recv + "." + s
	}
	if l.ImportPath != "" {
		if s == "" {
			return l.ImportPath
		}
		return l.ImportPath + "." + s
	}
	return s
}

// resolve reports why l does not resolve ("" if it does).
func resolve(l *comment.DocLink, self string, own names, root string, cache map[string]names) string {
	ns := own
	if l.ImportPath != "" && l.ImportPath != self {
		var ok bool
		if ns, ok = load(l.ImportPath, root, cache); !ok {
			return "no package " + l.ImportPath
		}
		if l.Name == "" {
			return ""
		}
	}
	key := l.Name
	if l.Recv != "" {
		key = l.Recv + "." + l.Name
	}
	if ns[key] {
		return ""
	}
	if l.ImportPath == "" {
		return "no " + key + " in this package"
	}
	return "no " + key + " in " + l.ImportPath
}

// load returns the names of the package at path: one of the module's or
// of the standard library.
func load(path, root string, cache map[string]names) (names, bool) {
	if ns, ok := cache[path]; ok {
		return ns, ns != nil
	}
	var dir string
	if rel, ok := strings.CutPrefix(path, module+"/"); ok {
		dir = filepath.Join(root, filepath.FromSlash(rel))
	} else if p, err := build.Default.Import(path, root, build.FindOnly); err == nil && p.Goroot {
		dir = p.Dir
	}
	var ns names
	if dir != "" {
		fset := token.NewFileSet()
		var files []*ast.File
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			n := e.Name()
			if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
				if f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution); err == nil {
					files = append(files, f)
				}
			}
		}
		if len(files) > 0 {
			ns = declared(files)
		}
	}
	cache[path] = ns
	return ns, ns != nil
}
