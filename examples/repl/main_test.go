package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/examples/internal/exampletest"
)

var session = []string{
	`extern "C" void kv_put(const char *key, int value);`,
	`extern "C" int kv_get(const char *key);`,
	`#include <cstdio>`,
	`#include <string>`,
	`#include <vector>`,
	`std::vector<std::string> keys = {"answer", "zero", "seven"};`,
	`for (size_t i = 0; i < keys.size(); i++) kv_put(keys[i].c_str(), i == 0 ? 42 : int(i * 7 - 7));`,
	`printf("answer=%d seven=%d\n", kv_get("answer"), kv_get("seven"));`,
	`%quit`,
}

func TestREPLCallsGo(t *testing.T) {
	const clangRepl = "/usr/lib/llvm-22/bin/clang-repl"
	exampletest.Require(t, clangRepl)
	host := exampletest.BuildHost(t)
	r := exampletest.StartCommand(t, []byte(strings.Join(session, "\n")+"\n"), clangRepl,
		"--oop-executor="+host, "--orc-runtime="+exampletest.ORCRuntime).Wait()
	assert.Equal(t, 0, r.Exit, r.Stderr)
	assert.Contains(t, r.Stdout, "answer=42 seven=7\n")
	assert.Contains(t, r.Stderr, "repl: store: answer=42\nrepl: store: seven=7\nrepl: store: zero=0\n")
}
