package mcpgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The repository root, from this package's directory (bindings/c/examples/go/mcpgen).
var root = filepath.Join("..", "..", "..", "..", "..")

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

var (
	validCall  = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"get_weather","arguments":{}}}`)
	invalidArg = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":5}}`)
	noMeta     = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather"}}`)
)

func modern(t testing.TB) Revision {
	rev, err := ParseRevision("2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	return rev
}

func context(t testing.TB) *Context {
	ctx, err := NewContext()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctx.Close)
	return ctx
}

// refusal asserts that err is an *Error with the given status.
func refusal(t *testing.T, err error, want Status) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want an *Error with %s, got %v", want.Name(), err)
	}
	if e.Status != want {
		t.Fatalf("want %s, got %s: %s", want.Name(), e.Status.Name(), e.Text)
	}
	return e
}

// hasEntry: some entry is at pointer, from keyword (a schema error) or rule (a protocol rule).
func hasEntry(e *Error, pointer, keyword, rule string) bool {
	for _, entry := range e.Entries {
		if entry.Pointer == pointer && (keyword == "" || entry.Keyword == keyword) && (rule == "" || entry.Rule == rule) {
			return true
		}
	}
	return false
}

func TestValidMessage(t *testing.T) {
	m, err := context(t).ValidateMessage(modern(t), validCall)
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != Request || m.Method != "tools/call" || m.ErrorCode != 0 {
		t.Fatalf("read %+v", m)
	}
	m, err = context(t).ValidateMessage(modern(t), []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`))
	if err != nil || m.Kind != ErrorMessage || m.ErrorCode != -32601 {
		t.Fatalf("an error message: %+v, %v", m, err)
	}
}

// A refusal arrives as entries with the JSON pointer, the keyword or the rule id.
func TestRefusalEntries(t *testing.T) {
	ctx, rev := context(t), modern(t)
	_, err := ctx.ValidateMessage(rev, invalidArg)
	e := refusal(t, err, StatusInvalid)
	if len(e.Entries) != 1 || !hasEntry(e, "/params/name", "type", "") || e.Entries[0].Rule != "" {
		t.Fatalf("want one `type` error (no rule) at /params/name, got %+v", e.Entries)
	}
	if !strings.Contains(e.Error(), "/params/name") {
		t.Fatalf("the text names the pointer: %q", e.Error())
	}
	_, err = ctx.ValidateMessage(rev, noMeta)
	e = refusal(t, err, StatusInvalid)
	if !hasEntry(e, "/params", "", "META-6") {
		t.Fatalf("want META-6 at /params, got %+v", e.Entries)
	}
	err = ctx.Validate(rev, "CallToolRequest", invalidArg)
	e = refusal(t, err, StatusInvalid)
	if !hasEntry(e, "/params/name", "type", "") {
		t.Fatalf("by definition: want a `type` error at /params/name, got %+v", e.Entries)
	}
}

func TestParseAndCallErrors(t *testing.T) {
	ctx, rev := context(t), modern(t)
	for _, text := range []string{"not json", "", `{"jsonrpc":"2.0",`} {
		_, err := ctx.ValidateMessage(rev, []byte(text))
		e := refusal(t, err, StatusParseError)
		if len(e.Entries) != 1 || e.Entries[0].Pointer != "" {
			t.Fatalf("%q: want one entry at the root, got %+v", text, e.Entries)
		}
	}
	refusal(t, ctx.Validate(rev, "NoSuchDefinition", validCall), StatusUnknownDefinition)
	if _, err := ParseRevision("1999-01-01"); err == nil {
		t.Fatal("an unknown revision parses")
	}
	refusal(t, ctx.Validate(Revision(0), "CallToolRequest", validCall), StatusUnknownRevision)
}

// The official examples, as the other surfaces run them: each validates as the definition its
// folder names, except the expected failures of vectors/official-examples.json ("decode"),
// which must fail.
func TestOfficialExamples(t *testing.T) {
	var file struct {
		ExpectedFailures map[string][]struct{ Example, Reason string } `json:"expected_failures"`
	}
	text, err := os.ReadFile(filepath.Join(root, "vectors", "official-examples.json"))
	if err == nil {
		err = json.Unmarshal(text, &file)
	}
	if err != nil {
		t.Fatal(err)
	}
	expected := map[string]string{}
	for _, entry := range file.ExpectedFailures["decode"] {
		expected[entry.Example] = entry.Reason
	}
	dir := filepath.Join(root, "schema", "2026-07-28", "examples")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if len(files) < 100 {
		t.Fatalf("%d official examples in %s; run `cargo xtask schema pull`", len(files), dir)
	}
	ctx, rev := context(t), modern(t)
	// As decoding does: a result is read as the definition its resultType names.
	if err := ctx.SetDiscriminateResults(true); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, path := range files {
		def := filepath.Base(filepath.Dir(path))
		key := def + "/" + strings.TrimSuffix(filepath.Base(path), ".json")
		bytes, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		err = ctx.Validate(rev, def, bytes)
		reason, listed := expected[key]
		switch {
		case listed && err == nil:
			t.Errorf("%s is listed as an expected failure (%s) but passes: remove it", key, reason)
		case listed:
			failed++
		case err != nil:
			t.Errorf("%s: %v", key, err)
		}
	}
	t.Logf("%d official examples, %d expected failures", len(files), failed)
}

// One context shared by goroutines (run with -race): every call gives the verdict it gives
// alone, and nothing is left to free.
func TestConcurrentUse(t *testing.T) {
	ctx, rev := context(t), modern(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				if _, err := ctx.ValidateMessage(rev, validCall); err != nil {
					errs <- fmt.Errorf("goroutine %d: a valid message refused: %v", g, err)
					return
				}
				_, err := ctx.ValidateMessage(rev, invalidArg)
				var e *Error
				if !errors.As(err, &e) || !hasEntry(e, "/params/name", "type", "") {
					errs <- fmt.Errorf("goroutine %d: want the `type` error, got %v", g, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
