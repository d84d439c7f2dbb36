// Command check validates MCP messages with libmcpgen, from Go: the Go twin of
// bindings/c/examples/mcpgen_check.c.
//
//	check FILE                 method-aware check of one JSON-RPC message (2026-07-28)
//	check --def NAME FILE      validate FILE against definition NAME
//	check --revision R ...     use another schema revision
//
// Exit status: 0 valid, 1 invalid (every error printed with its JSON pointer), 2 usage or I/O.
//
// Build (PKG_CONFIG_PATH names the lib/pkgconfig of an install.sh prefix):
//
//	PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig CGO_LDFLAGS=-Wl,-rpath,$PREFIX/lib go build .
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"mcpgen.example/check/mcpgen"
)

func main() {
	def := flag.String("def", "", "validate against this definition instead of as a message")
	revision := flag.String("revision", "2026-07-28", "schema revision")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: check [--revision R] [--def NAME] FILE")
		os.Exit(2)
	}
	json, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	rev, err := mcpgen.ParseRevision(*revision)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, err := mcpgen.NewContext()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer ctx.Close()

	if *def != "" {
		err = ctx.Validate(rev, *def, json)
	} else {
		var m mcpgen.Message
		if m, err = ctx.ValidateMessage(rev, json); err == nil && m.Method != "" {
			fmt.Printf("%s: valid %s\n", flag.Arg(0), m.Method)
			return
		}
	}
	var refused *mcpgen.Error
	switch {
	case err == nil:
		fmt.Printf("%s: valid\n", flag.Arg(0))
	case errors.As(err, &refused):
		fmt.Fprintf(os.Stderr, "%s: %s\n", flag.Arg(0), refused.Status.Name())
		for _, e := range refused.Entries {
			pointer, why := e.Pointer, e.Keyword
			if pointer == "" {
				pointer = "(root)"
			}
			if e.Rule != "" {
				why = e.Rule
			}
			if why != "" {
				why = " [" + why + "]"
			}
			// Entries deeper than 0 say why a union arm did not match.
			fmt.Fprintf(os.Stderr, "%*s%s: %s%s\n", 2+4*e.Depth, "", pointer, e.Message, why)
		}
		if len(refused.Entries) == 0 {
			fmt.Fprintf(os.Stderr, "  %s\n", refused.Text)
		}
		os.Exit(1)
	default:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
