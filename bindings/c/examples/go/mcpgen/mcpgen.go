// Package mcpgen calls libmcpgen, the mcpgen C library, from Go through cgo: enough to check
// MCP messages and to read why one is refused. It is an example of linking the library from
// another language (see docs/c.md), not a complete binding.
//
// The library is found with pkg-config (package "mcpgen"): point PKG_CONFIG_PATH at the
// lib/pkgconfig directory of a prefix that bindings/c/install.sh filled. That links the shared
// libmcpgen.so, so the program needs to find it at run time too (an rpath through CGO_LDFLAGS,
// or LD_LIBRARY_PATH).
//
// Every C object is freed before a function returns: errors are copied into Go values.
package mcpgen

/*
#cgo pkg-config: mcpgen
#include <stdlib.h>
#include <mcpgen.h>
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Status is an mcpgen_status code (MCPGEN_OK, MCPGEN_INVALID, …).
type Status uint32

// The statuses this package names; any other arrives as its number.
const (
	StatusOK                Status = C.MCPGEN_OK
	StatusInvalid           Status = C.MCPGEN_INVALID
	StatusParseError        Status = C.MCPGEN_PARSE_ERROR
	StatusProtocolViolation Status = C.MCPGEN_PROTOCOL_VIOLATION
	StatusUnknownRevision   Status = C.MCPGEN_UNKNOWN_REVISION
	StatusUnknownDefinition Status = C.MCPGEN_UNKNOWN_DEFINITION
)

// Name is the constant's name ("MCPGEN_INVALID"), from the library.
func (s Status) Name() string { return C.GoString(C.mcpgen_status_name(C.uint32_t(s))) }

// Revision is an mcpgen_revision code.
type Revision uint32

// ParseRevision finds the code of a revision name ("2026-07-28").
func ParseRevision(name string) (Revision, error) {
	var rev C.mcpgen_revision
	status := Status(C.mcpgen_revision_parse(cstr(name), C.size_t(len(name)), &rev))
	if status != StatusOK {
		return 0, fmt.Errorf("mcpgen: revision %q: %s", name, status.Name())
	}
	return Revision(rev), nil
}

// Kind is what a valid message is.
type Kind int

const (
	Request      Kind = C.MCPGEN_MESSAGE_REQUEST
	Notification Kind = C.MCPGEN_MESSAGE_NOTIFICATION
	Result       Kind = C.MCPGEN_MESSAGE_RESULT
	ErrorMessage Kind = C.MCPGEN_MESSAGE_ERROR
)

// Message is what ValidateMessage read from a valid message.
type Message struct {
	Kind Kind
	// Method of a request or notification, else "".
	Method string
	// ErrorCode of an error message, else 0.
	ErrorCode int64
}

// Entry is one entry of a refusal: a validation error or a protocol violation.
type Entry struct {
	// Pointer is the JSON pointer into the input (RFC 6901; "" for the root).
	Pointer string
	// Keyword is the JSON Schema keyword that failed ("type", "required", …), or "".
	Keyword string
	// Rule is the protocol rule id ("META-6") when a rule raised the entry, else "".
	Rule    string
	Message string
	// Depth is 0 for a top-level error; deeper entries say why union arm Arm did not match.
	Depth int
	Arm   string
}

// Error is why a call failed, copied out of the library's mcpgen_error.
type Error struct {
	Status  Status
	Text    string
	Entries []Entry
}

func (e *Error) Error() string { return e.Text }

// Context holds validation options. A Context is safe for concurrent use by many goroutines
// (the library's contexts are read-only once configured); Close it when no call uses it.
type Context struct {
	ptr *C.mcpgen_context
}

// NewContext makes a context with the library's defaults.
func NewContext() (*Context, error) {
	var ptr *C.mcpgen_context
	if status := Status(C.mcpgen_context_new(&ptr)); status != StatusOK {
		return nil, fmt.Errorf("mcpgen: context: %s", status.Name())
	}
	return &Context{ptr: ptr}, nil
}

// SetDiscriminateResults reads a result as the definition its resultType names (the library's
// mcpgen_context_set_discriminate_results). Call it before sharing the context.
func (c *Context) SetDiscriminateResults(on bool) error {
	return check(Status(C.mcpgen_context_set_discriminate_results(c.ptr, C.bool(on))), "discriminate results")
}

// Close frees the context.
func (c *Context) Close() {
	C.mcpgen_context_free(c.ptr)
	c.ptr = nil
}

// ValidateMessage checks one JSON-RPC message of revision rev: its schema by method, and the
// protocol rules. A refusal is an *Error.
func (c *Context) ValidateMessage(rev Revision, json []byte) (Message, error) {
	var (
		kind      C.mcpgen_message_kind
		method    *C.char
		methodLen C.size_t
		code      C.int64_t
		cerr      *C.mcpgen_error
	)
	ptr, n := bytes(json)
	status := Status(C.mcpgen_validate_message(c.ptr, C.uint32_t(rev), ptr, n, &kind, &method, &methodLen, &code, &cerr))
	if status != StatusOK {
		return Message{}, takeError(status, cerr)
	}
	m := Message{Kind: Kind(kind), ErrorCode: int64(code)}
	if method != nil {
		m.Method = C.GoStringN(method, C.int(methodLen))
		C.mcpgen_string_free(method)
	}
	return m, nil
}

// Validate checks json against definition def ("CallToolRequest") of revision rev.
func (c *Context) Validate(rev Revision, def string, json []byte) error {
	var cerr *C.mcpgen_error
	ptr, n := bytes(json)
	status := Status(C.mcpgen_validate(c.ptr, C.uint32_t(rev), cstr(def), C.size_t(len(def)), ptr, n, &cerr))
	if status != StatusOK {
		return takeError(status, cerr)
	}
	return nil
}

// takeError copies an mcpgen_error into an *Error and frees it.
func takeError(status Status, cerr *C.mcpgen_error) error {
	if cerr == nil {
		return &Error{Status: status, Text: status.Name()}
	}
	defer C.mcpgen_error_free(cerr)
	var text C.mcpgen_str
	var count C.size_t
	C.mcpgen_error_text(cerr, &text)
	C.mcpgen_error_count(cerr, &count)
	e := &Error{Status: status, Text: gostr(text), Entries: make([]Entry, 0, int(count))}
	for i := C.size_t(0); i < count; i++ {
		var pointer, keyword, rule, message, arm C.mcpgen_str
		var depth C.size_t
		C.mcpgen_error_pointer(cerr, i, &pointer)
		C.mcpgen_error_keyword(cerr, i, &keyword)
		C.mcpgen_error_rule(cerr, i, &rule)
		C.mcpgen_error_message(cerr, i, &message)
		C.mcpgen_error_arm(cerr, i, &depth, &arm)
		e.Entries = append(e.Entries, Entry{
			Pointer: gostr(pointer),
			Keyword: gostr(keyword),
			Rule:    gostr(rule),
			Message: gostr(message),
			Depth:   int(depth),
			Arm:     gostr(arm),
		})
	}
	return e
}

func check(status Status, what string) error {
	if status != StatusOK {
		return fmt.Errorf("mcpgen: %s: %s", what, status.Name())
	}
	return nil
}

// empty stands in for the data pointer of an empty input: the library refuses NULL.
var empty = [1]byte{}

// bytes passes Go memory to the call: the library reads it during the call only and keeps no
// pointer to it, as cgo's pointer rules require.
func bytes(b []byte) (*C.uint8_t, C.size_t) {
	if len(b) == 0 {
		return (*C.uint8_t)(unsafe.Pointer(&empty[0])), 0
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0])), C.size_t(len(b))
}

// cstr passes a Go string as (pointer, length) over a copy of its bytes: the library never
// needs a NUL terminator.
func cstr(s string) *C.char {
	ptr, _ := bytes([]byte(s))
	return (*C.char)(unsafe.Pointer(ptr))
}

// gostr copies a string the library lends (valid until its object is freed).
func gostr(s C.mcpgen_str) string {
	if s.ptr == nil {
		return ""
	}
	return C.GoStringN(s.ptr, C.int(s.len))
}
