// Command render executes a Go text/template the way BKE's controller does, so the
// Python engine can be compared with it byte for byte.
//
// Usage: render TEMPLATE_FILE CONTEXT_JSON_FILE [NAME]
//
//	render batch NAME < CASES > RESULTS
//
// Batch mode runs many cases in one process (a differential fuzz of tens of thousands of
// templates would otherwise start as many processes): each input line is a JSON object
// {"template": BASE64, "context": OBJECT}, each output line {"ok": BOOL, "out": BASE64,
// "err": BASE64} (the template bytes, output and error as they are, in base64, since any
// of them may hold bytes that are not UTF-8). Every case parses and executes on its own,
// exactly as in the single mode.
//
// The template is parsed with template.New(NAME).Funcs(funcs).Parse(text) (default
// options; NAME defaults to "calico", the addon name BKE's controller gives every file) and executed with the JSON context decoded as map[string]interface{}; JSON
// integers become int and other numbers float64. The version functions use the
// controller's library, blang/semver v4 (from the Go module proxy, pinned in go.mod). Output goes to stdout; any error goes
// to stderr with exit status 1.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"text/template"

	"github.com/blang/semver/v4"
)

// convert turns json.Number values into int (integers that fit) or float64.
func convert(v interface{}) (interface{}, error) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				return int(i), nil
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, err
		}
		return f, nil
	case map[string]interface{}:
		for k, e := range x {
			c, err := convert(e)
			if err != nil {
				return nil, err
			}
			x[k] = c
		}
		return x, nil
	case []interface{}:
		for i, e := range x {
			c, err := convert(e)
			if err != nil {
				return nil, err
			}
			x[i] = c
		}
		return x, nil
	}
	return v, nil
}

// parseVersion is the controller's (common/versionutil): blang/semver v4 ParseTolerant,
// the error ignored, so an unparsable version is 0.0.0.
func parseVersion(s string) semver.Version {
	v, _ := semver.ParseTolerant(s)
	return v
}

func compareVersions(a, b string) int {
	return parseVersion(a).Compare(parseVersion(b))
}

var funcs = template.FuncMap{
	"defaultFalse": func(x interface{}) string {
		if s := fmt.Sprintf("%v", x); s == "true" {
			return "true"
		}
		return "false"
	},
	"b64encode": func(x interface{}) string {
		return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%v", x)))
	},
	"split": func(s, sep string) []string {
		return strings.Split(s, sep)
	},
	"stringToSliceString": func(s, sep string) string {
		if s == "" {
			return "[]"
		}
		parts := strings.Split(s, sep)
		return `["` + strings.Join(parts, `","`) + `"]`
	},
	"int": func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0
		}
		return n
	},
	"indent": func(s, prefix string) string {
		return strings.ReplaceAll(s, "\n", "\n"+prefix)
	},
	"vgt":  func(a, b string) bool { return compareVersions(a, b) > 0 },
	"vlt":  func(a, b string) bool { return compareVersions(a, b) < 0 },
	"veq":  func(a, b string) bool { return compareVersions(a, b) == 0 },
	"vgte": func(a, b string) bool { return compareVersions(a, b) >= 0 },
	"vlte": func(a, b string) bool { return compareVersions(a, b) <= 0 },
	"vne":  func(a, b string) bool { return compareVersions(a, b) != 0 },
}

func run(tmplFile, ctxFile, name string) error {
	text, err := os.ReadFile(tmplFile)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(ctxFile)
	if err != nil {
		return err
	}
	data, err := decodeContext(raw)
	if err != nil {
		return err
	}
	out, err := execute(string(text), data, name)
	if err != nil {
		return err
	}
	_, err = os.Stdout.Write(out)
	return err
}

// decodeContext reads a JSON object as the controller's map, numbers converted.
func decodeContext(raw []byte) (map[string]interface{}, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var data map[string]interface{}
	if err := dec.Decode(&data); err != nil {
		return nil, err
	}
	if _, err := convert(data); err != nil {
		return nil, err
	}
	return data, nil
}

// execute parses text as template name with the controller's functions and runs it.
func execute(text string, data map[string]interface{}, name string) ([]byte, error) {
	tmpl, err := template.New(name).Funcs(funcs).Parse(text)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, data); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type batchCase struct {
	Template string          `json:"template"`
	Context  json.RawMessage `json:"context"`
}

type batchResult struct {
	OK  bool   `json:"ok"`
	Out string `json:"out"`
	Err string `json:"err"`
}

func runBatch(name string) error {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<30)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var c batchCase
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			return err
		}
		text, err := base64.StdEncoding.DecodeString(c.Template)
		if err != nil {
			return err
		}
		data, err := decodeContext(c.Context)
		if err != nil {
			return err
		}
		var r batchResult
		out, err := execute(string(text), data, name)
		if err != nil {
			r.Err = base64.StdEncoding.EncodeToString([]byte(err.Error()))
		} else {
			r.OK = true
			r.Out = base64.StdEncoding.EncodeToString(out)
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return in.Err()
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "batch" {
		if err := runBatch(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		return
	}
	if len(os.Args) != 3 && len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: render TEMPLATE_FILE CONTEXT_JSON_FILE [NAME]")
		os.Exit(2)
	}
	name := "calico"
	if len(os.Args) == 4 {
		name = os.Args[3]
	}
	if err := run(os.Args[1], os.Args[2], name); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
