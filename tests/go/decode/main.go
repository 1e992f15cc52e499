// Command decode reads a rendered stream the way BKE's controller reads it before it
// applies it (cluster-api-provider-bke, pkg/kube: ApplyYaml), so the Python parse can be
// compared with it object for object.
//
// Usage: decode           one stream on stdin; one JSON result on stdout
//
//	decode -batch    a JSON array of streams on stdin; a JSON array of results
//
// Each stream goes through what the controller calls: apimachinery's
// yaml.NewYAMLOrJSONDecoder (buffer 4096, as the controller's
// DefaultYamlDecoderBufferSize), one runtime.RawExtension per document,
// unstructured.UnstructuredJSONScheme.Decode, runtime.DefaultUnstructuredConverter.
// ToUnstructured, until io.EOF or the first error, which ends the file; then the
// controller's list step (the six list kinds it unwraps, a list it cannot unwrap
// skipped). A result is {"objects": [...], "error": null or the controller's message,
// "failed_at": index of the document that failed or null}: the objects decoded before
// an error are kept, the controller applies none of them.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	yamlutil "k8s.io/apimachinery/pkg/util/yaml"
)

// bufferSize is the controller's DefaultYamlDecoderBufferSize.
const bufferSize = 4096

type result struct {
	Objects  []map[string]interface{} `json:"objects"`
	Error    *string                  `json:"error"`
	FailedAt *int                     `json:"failed_at"`
}

// listKinds are the kinds the controller unwraps into their items (addonutil.GetListKinds).
var listKinds = map[string]bool{
	"ConfigMapList": true, "SecretList": true, "ClusterRoleList": true,
	"ClusterRoleBindingList": true, "RoleList": true, "RoleBindingList": true,
}

// decodeOne is the controller's UnStructYaml: one document off the decoder.
func decodeOne(decoder *yamlutil.YAMLOrJSONDecoder) (*unstructured.Unstructured, error) {
	var raw runtime.RawExtension
	if err := decoder.Decode(&raw); err != nil {
		return nil, err
	}
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(raw.Raw, nil, nil)
	if err != nil {
		return nil, err
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: content}, nil
}

// unwrap is the controller's list step for one object: a list kind gives its items,
// a list without items gives nothing, anything else itself.
func unwrap(u *unstructured.Unstructured) (out []map[string]interface{}, err error) {
	if !listKinds[u.GetKind()] {
		return []map[string]interface{}{u.Object}, nil
	}
	defer func() {
		// an item that is not a mapping panics in the controller; its ApplyYaml recovers
		// and applies nothing of the file
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	items, found, nerr := unstructured.NestedSlice(u.Object, "items")
	if nerr != nil || !found {
		return nil, nil
	}
	for _, item := range items {
		out = append(out, item.(map[string]interface{}))
	}
	return out, nil
}

func decodeStream(text []byte) result {
	res := result{Objects: []map[string]interface{}{}}
	fail := func(at int, err error) result {
		msg := err.Error()
		res.Error, res.FailedAt = &msg, &at
		return res
	}
	decoder := yamlutil.NewYAMLOrJSONDecoder(bytes.NewReader(text), bufferSize)
	var decoded []*unstructured.Unstructured
	for index := 0; ; index++ {
		u, err := decodeOne(decoder)
		if err == io.EOF { //nolint:errorlint // the controller compares with ==
			break
		}
		if err != nil {
			for _, d := range decoded {
				res.Objects = append(res.Objects, d.Object)
			}
			return fail(index, err)
		}
		decoded = append(decoded, u)
	}
	for index, u := range decoded {
		items, err := unwrap(u)
		if err != nil {
			res.Objects = nil
			return fail(index, err)
		}
		res.Objects = append(res.Objects, items...)
	}
	return res
}

func main() {
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var out interface{}
	if len(os.Args) > 1 && os.Args[1] == "-batch" {
		var streams []string
		if err := json.Unmarshal(input, &streams); err != nil {
			fmt.Fprintln(os.Stderr, "batch input is not a JSON array of strings:", err)
			os.Exit(1)
		}
		results := make([]result, len(streams))
		for i, s := range streams {
			results[i] = decodeStream([]byte(s))
		}
		out = results
	} else {
		out = decodeStream(input)
	}
	encoded, err := json.Marshal(out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(append(encoded, '\n'))
}
