// Command oracle answers, for many input files per process, what Kubernetes' own code makes of them:
// kubectl's splitting of a stream into documents, sigs.k8s.io/yaml's YAMLToJSON and YAMLToJSONStrict,
// the API server's strict JSON decoding (sigs.k8s.io/json), and the create path of a custom resource:
// ObjectMeta decoding and validation, structural pruning with unknown-field paths, pruning of
// non-nullable nulls, defaulting, and k8s.io/kube-openapi/pkg/validation/validate against the CRD's
// openAPIV3Schema.
//
// It is test code for kubectl-testbench's differential test (tests/oracle/test_differential.py), built
// in GOPATH mode against Debian's packaged sources (golang-k8s-sigs-yaml-dev, golang-gopkg-yaml.v2-dev,
// golang-gopkg-yaml.v3-dev, golang-k8s-kube-openapi-dev, golang-k8s-sigs-json-dev). The real libraries do
// the decoding and the OpenAPI validation. Debian packages neither k8s.io/apimachinery nor
// k8s.io/apiextensions-apiserver, so the few pieces of them the create path needs are ported here, each
// small, each citing its upstream file (kubernetes/kubernetes, staging/src/...):
//
//   - splitYAML:            k8s.io/apimachinery/pkg/util/yaml/decoder.go (YAMLReader, LineReader,
//     GuessJSONStream/hasJSONPrefix of NewYAMLOrJSONDecoder)
//   - decodeUnstructured:   k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/helpers.go (unstructuredJSONScheme
//     decode/decodeToList: any object with "items" is a list; items without kind and apiVersion inherit them)
//     and k8s.io/cli-runtime/pkg/resource/visitor.go (FlattenListVisitor, StreamVisitor skipping null documents)
//   - objectMeta & friends: k8s.io/apimachinery/pkg/apis/meta/v1/types.go and time.go (JSON shape of
//     ObjectMeta, OwnerReference, ManagedFieldsEntry, Time's RFC 3339 UnmarshalJSON)
//   - getObjectMeta:        k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta/coerce.go
//     (GetObjectMetaWithOptions with ReturnUnknownFieldPaths, DropMalformedFields=false on requests)
//   - prune:                k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning/algorithm.go
//     (PruneWithOptions with TrackUnknownFieldPaths; apiVersion/kind/metadata skipped at the resource root)
//   - pruneNulls, applyDefaults: .../apiserver/schema/defaulting/prunenulls.go and algorithm.go
//   - validateObjectMeta:   k8s.io/apimachinery/pkg/api/validation/objectmeta.go (ValidateObjectMetaAccessor),
//     .../apis/meta/v1/validation/validation.go (ValidateLabels, ValidateManagedFields) and
//     .../util/validation/validation.go (IsQualifiedName, IsValidLabelValue, IsDNS1123Label/Subdomain)
//   - schemaErrorsToFields: .../apiextensions-apiserver/pkg/apiserver/validation/validation.go
//     (ValidateCustomResource's mapping of OpenAPI error codes to field errors; ConvertJSONSchemaProps'
//     x-kubernetes-int-or-string → type [integer, string])
//   - the create steps in .../registry/customresource/strategy.go (PrepareForCreate drops status and sets
//     generation 1) and k8s.io/apiserver/pkg/registry/rest/create.go (BeforeCreate: name from generateName,
//     namespace from the request, system fields); k8s.io/apiserver/pkg/storage/etcd3/store.go refuses a
//     resourceVersion on create.
//
// CEL (x-kubernetes-validations) is not evaluated: cel-go is not packaged in Debian. The differential test
// allow-lists cel/* and checks CEL against the Kubernetes documentation's examples instead.
//
// Protocol: `oracle CRD.json` reads JSON lines {"id": ..., "data": <base64 of the file>} on stdin and writes one JSON line
// {"id": ..., "docs": [...]} per input on stdout, so one process answers thousands of files.
package main

import (
	"bufio"
	"bytes"
	gojson "encoding/json"
	stderrors "errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	textunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
	yamlv2 "gopkg.in/yaml.v2"
	yamlv3 "gopkg.in/yaml.v3"
	"k8s.io/kube-openapi/pkg/validation/errors"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// ---- protocol ------------------------------------------------------------------------------------------

type request struct {
	ID   string `json:"id"`
	Data []byte `json:"data"` // the file's bytes (base64 in JSON)
}

// FieldErr is one finding, with its field path as segments (strings and list indices).
type FieldErr struct {
	Type   string        `json:"type"`
	Path   []interface{} `json:"path"`
	Detail string        `json:"detail"`
}

// Object is one object after kubectl's list flattening.
type Object struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Class      string     `json:"class"` // experiment | foreign | rejected
	Errors     []FieldErr `json:"errors"`
}

// Doc is one document as kubectl splits the stream.
type Doc struct {
	Index       int        `json:"index"`
	JSON        bool       `json:"json"`
	ParseError  string     `json:"parse_error,omitempty"`
	Empty       bool       `json:"empty,omitempty"`
	JSONText    string     `json:"yaml_to_json,omitempty"`
	StrictError string     `json:"strict_error,omitempty"`
	Duplicates  []FieldErr `json:"duplicates,omitempty"`
	Objects     []Object   `json:"objects"`
}

type response struct {
	ID   string `json:"id"`
	Docs []Doc  `json:"docs"`
}

var crd struct {
	Group    string
	Kind     string
	ListKind string
	Versions map[string]*spec.Schema
	Raw      map[string]map[string]interface{}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: oracle CRD.json < requests.jsonl")
		os.Exit(2)
	}
	if err := loadCRD(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := gojson.NewEncoder(out)
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req request
			if jerr := gojson.Unmarshal(line, &req); jerr != nil {
				fmt.Fprintln(os.Stderr, "oracle: bad request:", jerr)
				os.Exit(2)
			}
			if eerr := enc.Encode(response{ID: req.ID, Docs: answer(req.Data)}); eerr != nil {
				os.Exit(2)
			}
			out.Flush()
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			os.Exit(2)
		}
	}
}

func loadCRD(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc struct {
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Kind     string `json:"kind"`
				ListKind string `json:"listKind"`
			} `json:"names"`
			Versions []struct {
				Name   string `json:"name"`
				Served bool   `json:"served"`
				Schema struct {
					OpenAPIV3Schema gojson.RawMessage `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := gojson.Unmarshal(data, &doc); err != nil {
		return err
	}
	crd.Group, crd.Kind, crd.ListKind = doc.Spec.Group, doc.Spec.Names.Kind, doc.Spec.Names.ListKind
	crd.Versions = map[string]*spec.Schema{}
	crd.Raw = map[string]map[string]interface{}{}
	for _, v := range doc.Spec.Versions {
		if !v.Served {
			continue
		}
		s := &spec.Schema{}
		if err := gojson.Unmarshal(v.Schema.OpenAPIV3Schema, s); err != nil {
			return err
		}
		intOrString(s)
		crd.Versions[v.Name] = s
		var raw map[string]interface{}
		if err := gojson.Unmarshal(v.Schema.OpenAPIV3Schema, &raw); err != nil {
			return err
		}
		crd.Raw[v.Name] = raw
	}
	return nil
}

// intOrString: ConvertJSONSchemaProps gives x-kubernetes-int-or-string nodes the types [integer, string].
func intOrString(s *spec.Schema) {
	if v, ok := s.Extensions["x-kubernetes-int-or-string"]; ok && v == true {
		s.Type = spec.StringOrArray{"integer", "string"}
	}
	for k, p := range s.Properties {
		intOrString(&p)
		s.Properties[k] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		intOrString(s.Items.Schema)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		intOrString(s.AdditionalProperties.Schema)
	}
	for i := range s.AnyOf {
		intOrString(&s.AnyOf[i])
	}
	for i := range s.AllOf {
		intOrString(&s.AllOf[i])
	}
	for i := range s.OneOf {
		intOrString(&s.OneOf[i])
	}
}

// ---- kubectl: streams and documents ------------------------------------------------------------------

func answer(input []byte) []Doc {
	// kubectl's FileVisitor reads files through unicode.BOMOverride(unicode.UTF8.NewDecoder()): a BOM picks
	// UTF-16 or UTF-8, and invalid UTF-8 becomes U+FFFD.
	data, err := io.ReadAll(transform.NewReader(bytes.NewReader(input),
		textunicode.BOMOverride(textunicode.UTF8.NewDecoder())))
	if err != nil {
		return []Doc{{ParseError: err.Error(), Objects: []Object{}}}
	}
	if hasJSONPrefix(data) {
		docs, failedAt := jsonStream(data)
		// YAMLOrJSONDecoder (apimachinery >= 1.30): when the first or second value is no JSON (a syntax error),
		// the stream is read as YAML from that value on; the JSON error stands only when YAML fails too.
		if failedAt >= 0 && len(docs) <= 2 {
			var rest []Doc
			ok := true
			for i, chunk := range splitYAML(data[failedAt:]) {
				doc := yamlDoc(len(docs)-1+i, chunk)
				ok = ok && doc.ParseError == ""
				rest = append(rest, doc)
			}
			if ok {
				return append(docs[:len(docs)-1], rest...)
			}
		}
		return docs
	}
	var docs []Doc
	for i, chunk := range splitYAML(data) {
		docs = append(docs, yamlDoc(i, chunk))
	}
	return docs
}

// hasJSONPrefix: NewYAMLOrJSONDecoder reads a stream as JSON when its first non-space byte is '{'.
func hasJSONPrefix(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{"))
}

type chunk struct {
	text []byte
	err  string
}

// splitYAML ports YAMLReader.Read: documents are separated by lines starting with "---"; only a comment
// may follow the marker; empty documents are not returned. Unlike kubectl, which stops at the first
// broken document, the oracle goes on, as the API server would receive each document on its own.
func splitYAML(data []byte) []chunk {
	var out []chunk
	var buf bytes.Buffer
	r := bufio.NewReader(bytes.NewReader(data))
	for {
		line, err := readLine(r)
		if bytes.HasPrefix(line, []byte("---")) {
			trimmed := strings.TrimSpace(string(line[3:]))
			if len(trimmed) > 0 && trimmed[0] != '#' {
				if buf.Len() != 0 {
					out = append(out, chunk{text: append([]byte(nil), buf.Bytes()...)})
					buf.Reset()
				}
				out = append(out, chunk{err: "invalid Yaml document separator: " + trimmed})
				if err == io.EOF {
					return out
				}
				continue
			}
			if buf.Len() != 0 {
				out = append(out, chunk{text: append([]byte(nil), buf.Bytes()...)})
				buf.Reset()
			}
			if err == io.EOF {
				return out
			}
			continue
		}
		if err == io.EOF {
			if buf.Len() != 0 {
				out = append(out, chunk{text: append([]byte(nil), buf.Bytes()...)})
			}
			return out
		}
		buf.Write(line)
	}
}

// readLine ports LineReader.Read: a whole line without its line break, plus "\n".
func readLine(r *bufio.Reader) ([]byte, error) {
	var buffer bytes.Buffer
	isPrefix := true
	var err error
	var line []byte
	for isPrefix && err == nil {
		line, isPrefix, err = r.ReadLine()
		buffer.Write(line)
	}
	buffer.WriteByte('\n')
	return buffer.Bytes(), err
}

func yamlDoc(index int, c chunk) Doc {
	doc := Doc{Index: index, Objects: []Object{}}
	if c.err != "" {
		doc.ParseError = c.err
		return doc
	}
	j, err := yaml.YAMLToJSON(c.text)
	if err != nil {
		doc.ParseError = err.Error()
		return doc
	}
	doc.JSONText = string(j)
	if _, serr := yaml.YAMLToJSONStrict(c.text); serr != nil {
		doc.StrictError = serr.Error()
		doc.Duplicates = yamlDuplicatePaths(c.text)
		if len(doc.Duplicates) == 0 {
			doc.Duplicates = []FieldErr{{Type: "FieldValueDuplicate", Path: []interface{}{}, Detail: serr.Error()}}
		}
	}
	raw := bytes.TrimSpace(j)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		doc.Empty = true
		return doc
	}
	doc.Objects = objectsOf(raw)
	return doc
}

// jsonStream: the JSON branch of NewYAMLOrJSONDecoder decodes a stream of JSON values (encoding/json).
// jsonStream reads the values of a JSON stream; failedAt is where a value that is no JSON (a syntax error)
// starts, or -1.
func jsonStream(data []byte) (docs []Doc, failedAt int64) {
	dec := gojson.NewDecoder(bytes.NewReader(data))
	for i := 0; ; i++ {
		var raw gojson.RawMessage
		start := dec.InputOffset()
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, -1
		}
		doc := Doc{Index: i, JSON: true, Objects: []Object{}}
		if err != nil {
			doc.ParseError = err.Error()
			var syntax *gojson.SyntaxError
			if stderrors.As(err, &syntax) {
				return append(docs, doc), start
			}
			return append(docs, doc), -1
		}
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
			doc.Empty = true
			docs = append(docs, doc)
			continue
		}
		var sink interface{}
		strictErrs, uerr := kjson.UnmarshalStrict(trimmed, &sink, kjson.DisallowDuplicateFields)
		if uerr != nil {
			doc.ParseError = uerr.Error()
			docs = append(docs, doc)
			continue
		}
		for _, e := range strictErrs {
			doc.Duplicates = append(doc.Duplicates, strictErr("FieldValueDuplicate", e, nil))
		}
		if len(strictErrs) > 0 {
			doc.StrictError = fmt.Sprint(strictErrs)
		}
		doc.Objects = objectsOf(trimmed)
		docs = append(docs, doc)
	}
}

var quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// strictErr turns a sigs.k8s.io/json strict error (`duplicate field "a.b[0].c"`) into a field error.
func strictErr(kind string, err error, prefix []interface{}) FieldErr {
	m := quoted.FindStringSubmatch(err.Error())
	path := append([]interface{}{}, prefix...)
	if m != nil {
		path = append(path, dottedPath(m[1])...)
	}
	return FieldErr{Type: kind, Path: path, Detail: err.Error()}
}

var segment = regexp.MustCompile(`\[(\d+)\]|\.?([^.\[]+)`)

func dottedPath(text string) []interface{} {
	out := []interface{}{}
	for _, m := range segment.FindAllStringSubmatch(text, -1) {
		if m[1] != "" {
			n, _ := strconv.Atoi(m[1])
			out = append(out, n)
		} else {
			out = append(out, m[2])
		}
	}
	return out
}

// ---- unstructured decoding and list flattening ------------------------------------------------------

func objectsOf(raw []byte) []Object {
	var top interface{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &top); err != nil {
		return []Object{{Class: "rejected", Errors: []FieldErr{{Type: "Decode", Path: []interface{}{}, Detail: err.Error()}}}}
	}
	m, ok := top.(map[string]interface{})
	if !ok {
		return []Object{{Class: "rejected", Errors: []FieldErr{{Type: "NotAnObject", Path: []interface{}{},
			Detail: fmt.Sprintf("cannot unmarshal %T into an object", top)}}}}
	}
	items, err := flatten(m, true)
	if err != nil {
		return []Object{{Class: "rejected", Errors: []FieldErr{{Type: "Decode", Path: []interface{}{}, Detail: err.Error()}}}}
	}
	var out []Object
	for _, item := range items {
		out = append(out, createObject(item))
	}
	if out == nil {
		out = []Object{}
	}
	return out
}

// flatten: decodeToList (top level: items inherit kind/apiVersion when they have neither) and
// FlattenListVisitor (nested lists are flattened too, without inference).
func flatten(m map[string]interface{}, top bool) ([]map[string]interface{}, error) {
	itemsValue, isList := m["items"]
	if !isList {
		return []map[string]interface{}{m}, nil
	}
	if !top {
		if _, ok := itemsValue.([]interface{}); !ok {
			return []map[string]interface{}{m}, nil // Unstructured.IsList needs a list
		}
	}
	if itemsValue == nil {
		return nil, nil
	}
	list, ok := itemsValue.([]interface{})
	if !ok {
		return nil, fmt.Errorf("json: cannot unmarshal %T into Go struct field .items of type []json.RawMessage", itemsValue)
	}
	listAPIVersion, _ := m["apiVersion"].(string)
	listKind, _ := m["kind"].(string)
	itemKind := strings.TrimSuffix(listKind, "List")
	var out []map[string]interface{}
	for _, item := range list {
		child, ok := item.(map[string]interface{})
		if item == nil {
			child, ok = map[string]interface{}{}, true
		}
		if !ok {
			return nil, fmt.Errorf("json: cannot unmarshal %T into Go value of type map[string]interface {}", item)
		}
		if top {
			_, hasKind := child["kind"].(string)
			_, hasVersion := child["apiVersion"].(string)
			if (!hasKind || child["kind"] == "") && (!hasVersion || child["apiVersion"] == "") {
				child["kind"] = itemKind
				child["apiVersion"] = listAPIVersion
			}
		}
		nested, err := flatten(child, false)
		if err != nil {
			return nil, err
		}
		out = append(out, nested...)
	}
	return out, nil
}

func groupVersion(apiVersion string) (string, string) {
	if i := strings.Index(apiVersion, "/"); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// ---- the API server's create path for one custom resource ----------------------------------------------

func createObject(obj map[string]interface{}) Object {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	o := Object{APIVersion: apiVersion, Kind: kind, Class: "foreign", Errors: []FieldErr{}}
	if kind == "" {
		o.Class = "rejected"
		o.Errors = append(o.Errors, FieldErr{Type: "MissingKind", Path: []interface{}{"kind"}, Detail: "Object 'Kind' is missing"})
		return o
	}
	group, version := groupVersion(apiVersion)
	if group != crd.Group {
		if group == "" && kind == crd.Kind { // the core group has no Experiment: no matches for kind
			o.Class = "rejected"
			o.Errors = append(o.Errors, FieldErr{Type: "NoKindMatch", Path: []interface{}{},
				Detail: fmt.Sprintf("no matches for kind %q in version %q", kind, apiVersion)})
		}
		return o
	}
	schema, served := crd.Versions[version]
	if kind != crd.Kind || !served {
		o.Class = "rejected"
		o.Errors = append(o.Errors, FieldErr{Type: "NoKindMatch", Path: []interface{}{},
			Detail: fmt.Sprintf("no matches for kind %q in version %q", kind, apiVersion)})
		return o
	}
	o.Class = "experiment"
	raw := crd.Raw[version]

	// decoding (schemaCoercingDecoder → unstructuredSchemaCoercer.apply)
	meta, found, unknownMeta, err := getObjectMeta(obj)
	if err != nil {
		o.Errors = append(o.Errors, *err)
		return o
	}
	o.Errors = append(o.Errors, unknownMeta...)
	var unknown [][]interface{}
	prune(obj, raw, true, []interface{}{}, &unknown)
	for _, p := range unknown {
		o.Errors = append(o.Errors, FieldErr{Type: "FieldValueUnknown", Path: p, Detail: "unknown field"})
	}
	pruneNulls(obj, raw)
	if found {
		obj["metadata"] = meta.toUnstructured()
	}
	applyDefaults(obj, raw)

	// PrepareForCreate, BeforeCreate
	delete(obj, "status")
	if meta == nil {
		meta = &objectMeta{}
	}
	meta.Generation = 1
	if meta.Name == "" && meta.GenerateName != "" {
		base := meta.GenerateName
		if len(base) > 58 {
			base = base[:58]
		}
		meta.Name = base + "abcde"
	}
	if meta.Namespace == "" {
		meta.Namespace = "default"
	}
	obj["metadata"] = meta.toUnstructured()

	// Validate: ObjectMeta, then the OpenAPI schema
	o.Errors = append(o.Errors, validateObjectMeta(meta)...)
	o.Errors = append(o.Errors, schemaErrors(schema, raw, obj)...)
	if rv := meta.ResourceVersion; rv != "" {
		if n, perr := strconv.ParseUint(rv, 10, 64); perr == nil && n != 0 {
			o.Errors = append(o.Errors, FieldErr{Type: "BadRequest", Path: []interface{}{"metadata", "resourceVersion"},
				Detail: "resourceVersion should not be set on objects to be created"})
		}
	}
	return o
}

// ---- ObjectMeta (k8s.io/apimachinery/pkg/apis/meta/v1/types.go, time.go) ---------------------------------

type metaTime struct{ t time.Time }

func (t *metaTime) UnmarshalJSON(b []byte) error {
	if len(b) == 4 && string(b) == "null" {
		t.t = time.Time{}
		return nil
	}
	var str string
	if err := gojson.Unmarshal(b, &str); err != nil {
		return err
	}
	pt, err := time.Parse(time.RFC3339, str)
	if err != nil {
		return err
	}
	t.t = pt
	return nil
}

type fieldsV1 struct{ raw []byte }

func (f *fieldsV1) UnmarshalJSON(b []byte) error {
	if !bytes.Equal(b, []byte("null")) {
		f.raw = append(f.raw[0:0], b...)
	}
	return nil
}

type ownerReference struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	Name               string `json:"name"`
	UID                string `json:"uid"`
	Controller         *bool  `json:"controller,omitempty"`
	BlockOwnerDeletion *bool  `json:"blockOwnerDeletion,omitempty"`
}

type managedFieldsEntry struct {
	Manager     string    `json:"manager,omitempty"`
	Operation   string    `json:"operation,omitempty"`
	APIVersion  string    `json:"apiVersion,omitempty"`
	Time        *metaTime `json:"time,omitempty"`
	FieldsType  string    `json:"fieldsType,omitempty"`
	FieldsV1    *fieldsV1 `json:"fieldsV1,omitempty"`
	Subresource string    `json:"subresource,omitempty"`
}

type objectMeta struct {
	Name                       string               `json:"name,omitempty"`
	GenerateName               string               `json:"generateName,omitempty"`
	Namespace                  string               `json:"namespace,omitempty"`
	SelfLink                   string               `json:"selfLink,omitempty"`
	UID                        string               `json:"uid,omitempty"`
	ResourceVersion            string               `json:"resourceVersion,omitempty"`
	Generation                 int64                `json:"generation,omitempty"`
	CreationTimestamp          metaTime             `json:"creationTimestamp,omitempty"`
	DeletionTimestamp          *metaTime            `json:"deletionTimestamp,omitempty"`
	DeletionGracePeriodSeconds *int64               `json:"deletionGracePeriodSeconds,omitempty"`
	Labels                     map[string]string    `json:"labels,omitempty"`
	Annotations                map[string]string    `json:"annotations,omitempty"`
	OwnerReferences            []ownerReference     `json:"ownerReferences,omitempty"`
	Finalizers                 []string             `json:"finalizers,omitempty"`
	ManagedFields              []managedFieldsEntry `json:"managedFields,omitempty"`
}

func (m *objectMeta) toUnstructured() map[string]interface{} {
	out := map[string]interface{}{"creationTimestamp": nil}
	if m.Name != "" {
		out["name"] = m.Name
	}
	if m.Namespace != "" {
		out["namespace"] = m.Namespace
	}
	if m.Generation != 0 {
		out["generation"] = m.Generation
	}
	if len(m.Labels) > 0 {
		labels := map[string]interface{}{}
		for k, v := range m.Labels {
			labels[k] = v
		}
		out["labels"] = labels
	}
	if len(m.Annotations) > 0 {
		annotations := map[string]interface{}{}
		for k, v := range m.Annotations {
			annotations[k] = v
		}
		out["annotations"] = annotations
	}
	return out
}

var jsonTypeField = regexp.MustCompile(`Go struct field \S*?\.(\S+) of type`)

// getObjectMeta ports GetObjectMetaWithOptions(ReturnUnknownFieldPaths: true, DropMalformedFields: false).
func getObjectMeta(obj map[string]interface{}) (*objectMeta, bool, []FieldErr, *FieldErr) {
	metadata, found := obj["metadata"]
	if !found {
		return nil, false, nil, nil
	}
	data, err := gojson.Marshal(metadata)
	if err != nil {
		return nil, true, nil, &FieldErr{Type: "Decode", Path: []interface{}{"metadata"}, Detail: err.Error()}
	}
	meta := &objectMeta{}
	strictErrs, err := kjson.UnmarshalStrict(data, meta)
	if err != nil {
		path := []interface{}{"metadata"}
		if m := jsonTypeField.FindStringSubmatch(err.Error()); m != nil {
			path = append(path, dottedPath(m[1])...)
		}
		return nil, true, nil, &FieldErr{Type: "Decode", Path: path, Detail: err.Error()}
	}
	var unknown []FieldErr
	for _, e := range strictErrs {
		unknown = append(unknown, strictErr("FieldValueUnknown", e, []interface{}{"metadata"}))
	}
	return meta, true, unknown, nil
}

// ---- pruning, nulls, defaults (apiextensions-apiserver/pkg/apiserver/schema/{pruning,defaulting}) ------

type node = map[string]interface{}

func props(s node) map[string]interface{} {
	p, _ := s["properties"].(map[string]interface{})
	return p
}

func child(s node, key string) (node, bool) {
	if s == nil {
		return nil, false
	}
	if p, ok := props(s)[key].(map[string]interface{}); ok {
		return p, true
	}
	if a, ok := s["additionalProperties"].(map[string]interface{}); ok {
		return a, true
	}
	return nil, false
}

func preserves(s node) bool {
	v, _ := s["x-kubernetes-preserve-unknown-fields"].(bool)
	return v
}

var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// prune ports PruneWithOptions: fields without a schema are removed and their paths collected.
func prune(x interface{}, s node, root bool, path []interface{}, unknown *[][]interface{}) {
	if s != nil && preserves(s) {
		skipPrune(x, s, root, path, unknown)
		return
	}
	switch x := x.(type) {
	case map[string]interface{}:
		for _, k := range sortedKeys(x) {
			if root && metaFields[k] {
				continue
			}
			p := appendPath(path, k)
			if c, ok := child(s, k); ok {
				prune(x[k], c, false, p, unknown)
			} else {
				*unknown = append(*unknown, p)
				delete(x, k)
			}
		}
	case []interface{}:
		var items node
		if s != nil {
			items, _ = s["items"].(map[string]interface{})
		}
		for i, v := range x {
			prune(v, items, false, appendPath(path, i), unknown)
		}
	}
}

func skipPrune(x interface{}, s node, root bool, path []interface{}, unknown *[][]interface{}) {
	switch x := x.(type) {
	case map[string]interface{}:
		for _, k := range sortedKeys(x) {
			if root && metaFields[k] {
				continue
			}
			if c, ok := child(s, k); ok {
				prune(x[k], c, false, appendPath(path, k), unknown)
			}
		}
	case []interface{}:
		items, _ := s["items"].(map[string]interface{})
		for i, v := range x {
			if items != nil {
				skipPrune(v, items, false, appendPath(path, i), unknown)
			}
		}
	}
}

func nullable(s node) bool {
	v, _ := s["nullable"].(bool)
	return v
}

// pruneNulls ports PruneNonNullableNullsWithoutDefaults.
func pruneNulls(x interface{}, s node) {
	switch x := x.(type) {
	case map[string]interface{}:
		for k, v := range x {
			c, ok := child(s, k)
			if v == nil && ok && !nullable(c) && c["default"] == nil {
				delete(x, k)
			} else if ok {
				pruneNulls(v, c)
			} else {
				pruneNulls(v, nil)
			}
		}
	case []interface{}:
		var items node
		if s != nil {
			items, _ = s["items"].(map[string]interface{})
		}
		for _, v := range x {
			pruneNulls(v, items)
		}
	}
}

// applyDefaults ports defaulting.Default.
func applyDefaults(x interface{}, s node) {
	if s == nil {
		return
	}
	switch x := x.(type) {
	case map[string]interface{}:
		for k, p := range props(s) {
			prop, _ := p.(map[string]interface{})
			def, has := prop["default"]
			if !has {
				continue
			}
			if v, found := x[k]; !found || (v == nil && !nullable(prop)) {
				x[k] = deepCopy(def)
			}
		}
		for k, v := range x {
			if c, ok := child(s, k); ok {
				applyDefaults(v, c)
			}
		}
	case []interface{}:
		items, _ := s["items"].(map[string]interface{})
		for i := range x {
			applyDefaults(x[i], items)
		}
	}
}

func deepCopy(v interface{}) interface{} {
	data, _ := gojson.Marshal(v)
	var out interface{}
	_ = kjson.UnmarshalCaseSensitivePreserveInts(data, &out)
	return out
}

func sortedKeys(m map[string]interface{}) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func appendPath(path []interface{}, seg interface{}) []interface{} {
	out := make([]interface{}, len(path), len(path)+1)
	copy(out, path)
	return append(out, seg)
}

// ---- ObjectMeta validation (apimachinery api/validation/objectmeta.go and friends) ----------------------

const (
	dns1123LabelFmt     = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	qualifiedNameFmt    = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt       = "(" + qualifiedNameFmt + ")?"
	totalAnnotationSize = 256 * (1 << 10)
)

var (
	dns1123LabelRe     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	dns1123SubdomainRe = regexp.MustCompile("^" + dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*$")
	qualifiedNameRe    = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	labelValueRe       = regexp.MustCompile("^" + labelValueFmt + "$")
)

func isDNS1123Label(v string) []string {
	var errs []string
	if len(v) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !dns1123LabelRe.MatchString(v) {
		errs = append(errs, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'")
	}
	return errs
}

func isDNS1123Subdomain(v string) []string {
	var errs []string
	if len(v) > 253 {
		errs = append(errs, "must be no more than 253 characters")
	}
	if !dns1123SubdomainRe.MatchString(v) {
		errs = append(errs, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'")
	}
	return errs
}

func isQualifiedName(value string) []string {
	var errs []string
	parts := strings.Split(value, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if len(prefix) == 0 {
			errs = append(errs, "prefix part must be non-empty")
		} else if msgs := isDNS1123Subdomain(prefix); len(msgs) != 0 {
			for _, m := range msgs {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return append(errs, "a qualified name must consist of alphanumeric characters, '-', '_' or '.'")
	}
	if len(name) == 0 {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > 63 {
		errs = append(errs, "name part must be no more than 63 characters")
	}
	if !qualifiedNameRe.MatchString(name) {
		errs = append(errs, "name part must consist of alphanumeric characters, '-', '_' or '.'")
	}
	return errs
}

func isValidLabelValue(value string) []string {
	var errs []string
	if len(value) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !labelValueRe.MatchString(value) {
		errs = append(errs, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.'")
	}
	return errs
}

// maskTrailingDash: generateName is validated as a prefix (NameIsDNSSubdomain(name, true)).
func maskTrailingDash(name string) string {
	if len(name) > 1 && strings.HasSuffix(name, "-") {
		return name[:len(name)-2] + "a"
	}
	return name
}

func invalid(path []interface{}, detail string) FieldErr {
	return FieldErr{Type: "FieldValueInvalid", Path: path, Detail: detail}
}

func validateObjectMeta(m *objectMeta) []FieldErr {
	var errs []FieldErr
	meta := []interface{}{"metadata"}
	at := func(k string) []interface{} { return appendPath(meta, k) }
	if m.GenerateName != "" {
		for _, msg := range isDNS1123Subdomain(maskTrailingDash(m.GenerateName)) {
			errs = append(errs, invalid(at("generateName"), msg))
		}
	}
	if m.Name == "" {
		errs = append(errs, FieldErr{Type: "FieldValueRequired", Path: at("name"), Detail: "name or generateName is required"})
	} else {
		for _, msg := range isDNS1123Subdomain(m.Name) {
			errs = append(errs, invalid(at("name"), msg))
		}
	}
	for _, msg := range isDNS1123Label(m.Namespace) {
		errs = append(errs, invalid(at("namespace"), msg))
	}
	if m.Generation < 0 {
		errs = append(errs, invalid(at("generation"), "must be greater than or equal to 0"))
	}
	for k, v := range m.Labels {
		for _, msg := range isQualifiedName(k) {
			errs = append(errs, invalid(at("labels"), msg))
		}
		for _, msg := range isValidLabelValue(v) {
			errs = append(errs, invalid(at("labels"), msg))
		}
	}
	size := 0
	for k, v := range m.Annotations {
		for _, msg := range isQualifiedName(strings.ToLower(k)) {
			errs = append(errs, invalid(at("annotations"), msg))
		}
		size += len(k) + len(v)
	}
	if size > totalAnnotationSize {
		errs = append(errs, FieldErr{Type: "FieldValueTooLong", Path: at("annotations"), Detail: "annotations too long"})
	}
	controller := ""
	for _, ref := range m.OwnerReferences {
		refs := at("ownerReferences")
		_, version := groupVersion(ref.APIVersion)
		if strings.Count(ref.APIVersion, "/") > 1 {
			version = ""
		}
		if version == "" {
			errs = append(errs, invalid(appendPath(refs, "apiVersion"), "version must not be empty"))
		}
		if ref.Kind == "" {
			errs = append(errs, invalid(appendPath(refs, "kind"), "must not be empty"))
		}
		if ref.Name == "" {
			errs = append(errs, invalid(appendPath(refs, "name"), "must not be empty"))
		}
		if ref.UID == "" {
			errs = append(errs, invalid(appendPath(refs, "uid"), "must not be empty"))
		}
		if ref.APIVersion == "v1" && ref.Kind == "Event" {
			errs = append(errs, invalid(refs, "/v1, Kind=Event is disallowed from being an owner"))
		}
		if ref.Controller != nil && *ref.Controller {
			if controller != "" {
				errs = append(errs, invalid(refs, "Only one reference can have Controller set to true"))
			} else {
				controller = ref.Kind + "/" + ref.Name
			}
		}
	}
	orphan, deleteDeps := false, false
	for _, f := range m.Finalizers {
		for _, msg := range isQualifiedName(f) {
			errs = append(errs, invalid(at("finalizers"), msg))
		}
		orphan = orphan || f == "orphan"
		deleteDeps = deleteDeps || f == "foregroundDeletion"
	}
	if orphan && deleteDeps {
		errs = append(errs, invalid(at("finalizers"), "finalizer orphan and foregroundDeletion cannot be both set"))
	}
	for i, mf := range m.ManagedFields {
		p := appendPath(at("managedFields"), i)
		if mf.Operation != "Apply" && mf.Operation != "Update" {
			errs = append(errs, invalid(appendPath(p, "operation"), "must be `Apply` or `Update`"))
		}
		if mf.FieldsType != "" && mf.FieldsType != "FieldsV1" {
			errs = append(errs, invalid(appendPath(p, "fieldsType"), "must be `FieldsV1`"))
		}
		if len(mf.Manager) > 128 {
			errs = append(errs, FieldErr{Type: "FieldValueTooLong", Path: appendPath(p, "manager"), Detail: "too long"})
		}
		for _, r := range mf.Manager {
			if !unicode.IsPrint(r) {
				errs = append(errs, invalid(appendPath(p, "manager"), "invalid character"))
				break
			}
		}
		if len(mf.Subresource) > 256 {
			errs = append(errs, FieldErr{Type: "FieldValueTooLong", Path: appendPath(p, "subresource"), Detail: "too long"})
		}
	}
	return errs
}

// ---- OpenAPI validation (k8s.io/kube-openapi/pkg/validation/validate) --------------------------------

func schemaErrors(schema *spec.Schema, raw node, obj map[string]interface{}) []FieldErr {
	v := validate.NewSchemaValidator(schema, nil, "", strfmt.Default)
	result := v.Validate(obj)
	var out []FieldErr
	for _, err := range result.Errors {
		verr, ok := err.(*errors.Validation)
		if !ok {
			// ValidateCustomResource reports other errors (anyOf/oneOf composites) as field.Invalid at the root;
			// their message names the field, which we keep as the path
			path := []interface{}{}
			if m := quoted.FindStringSubmatch(err.Error()); m != nil {
				path = dottedPath(m[1])
			}
			out = append(out, FieldErr{Type: "FieldValueInvalid", Path: path, Detail: err.Error()})
			continue
		}
		name := strings.TrimPrefix(verr.Name, ".")
		path := []interface{}{}
		if name != "" {
			path = schemaPath(name, raw)
		}
		out = append(out, FieldErr{Type: errorType(verr.Code()), Path: path, Detail: verr.Error()})
	}
	return out
}

func errorType(code int32) string {
	switch code {
	case errors.RequiredFailCode:
		return "FieldValueRequired"
	case errors.EnumFailCode:
		return "FieldValueNotSupported"
	case errors.TooLongFailCode:
		return "FieldValueTooLong"
	case errors.MaxItemsFailCode:
		return "FieldValueTooMany"
	case errors.TooManyPropertiesCode:
		return "FieldValueTooMany"
	case errors.InvalidTypeCode:
		return "FieldValueTypeInvalid"
	}
	return "FieldValueInvalid"
}

// schemaPath splits kube-openapi's error name ("spec.env[0].name": the build applies upstream's fix that
// puts list indices into the path, see tests/oracle/harness.py) into segments.
func schemaPath(name string, _ node) []interface{} {
	return dottedPath(name)
}

// ---- duplicate keys: where YAMLToJSONStrict's "already set in map" errors are -------------------------

// yamlDuplicatePaths walks the document with gopkg.in/yaml.v3's node tree (for positions only) and replays
// go-yaml v2's mapping decoding (decode.go mapping/merge/setMapIndex): entries in order, merges where they
// stand (a sequence of merged maps from last to first), every second write of a key is a strict error.
// Keys are resolved with go-yaml v2 itself and named as sigs.k8s.io/yaml names them in JSON.
func yamlDuplicatePaths(text []byte) []FieldErr {
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(text, &root); err != nil || len(root.Content) == 0 {
		return nil
	}
	var out []FieldErr
	walkDuplicates(root.Content[0], []interface{}{}, &out)
	return out
}

func walkDuplicates(n *yamlv3.Node, path []interface{}, out *[]FieldErr) {
	switch n.Kind {
	case yamlv3.AliasNode:
		return // the anchored node was checked where it was defined
	case yamlv3.SequenceNode:
		for i, c := range n.Content {
			walkDuplicates(c, appendPath(path, i), out)
		}
	case yamlv3.MappingNode:
		seen := map[interface{}]bool{}
		var set func(m *yamlv3.Node)
		set = func(m *yamlv3.Node) {
			for i := 0; i+1 < len(m.Content); i += 2 {
				k, v := m.Content[i], m.Content[i+1]
				if k.Kind == yamlv3.ScalarNode && k.Value == "<<" && k.Style == 0 {
					target := v
					if target.Kind == yamlv3.AliasNode {
						target = target.Alias
					}
					if target.Kind == yamlv3.MappingNode {
						set(target)
					} else if target.Kind == yamlv3.SequenceNode {
						for j := len(target.Content) - 1; j >= 0; j-- {
							item := target.Content[j]
							if item.Kind == yamlv3.AliasNode {
								item = item.Alias
							}
							if item.Kind == yamlv3.MappingNode {
								set(item)
							}
						}
					}
					continue
				}
				key := v2Key(k)
				if key == nil {
					continue
				}
				if seen[key] {
					*out = append(*out, FieldErr{Type: "FieldValueDuplicate", Path: appendPath(path, jsonKey(key)),
						Detail: fmt.Sprintf("line %d: key %#v already set in map", v.Line, key)})
				}
				seen[key] = true
			}
		}
		set(n)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yamlv3.ScalarNode && k.Value == "<<" && k.Style == 0 {
				continue
			}
			if key := v2Key(k); key != nil {
				walkDuplicates(v, appendPath(path, jsonKey(key)), out)
			}
		}
	}
}

// v2Key resolves a key node as go-yaml v2 does (YAML 1.1 scalars), by letting v2 decode it.
func v2Key(k *yamlv3.Node) interface{} {
	if k.Kind != yamlv3.ScalarNode {
		return nil
	}
	if k.Style&(yamlv3.DoubleQuotedStyle|yamlv3.SingleQuotedStyle|yamlv3.LiteralStyle|yamlv3.FoldedStyle) != 0 {
		return k.Value
	}
	text := k.Value
	if k.Style&yamlv3.TaggedStyle != 0 {
		text = k.Tag + " " + text
	}
	var v interface{}
	if err := yamlv2.Unmarshal([]byte(text), &v); err != nil {
		return k.Value
	}
	return v
}

// jsonKey names a key as sigs.k8s.io/yaml's convertToJSONableObject does.
func jsonKey(k interface{}) string {
	switch t := k.(type) {
	case string:
		return t
	case int:
		return strconv.Itoa(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case uint64:
		return strconv.FormatUint(t, 10)
	case float64:
		s := strconv.FormatFloat(t, 'g', -1, 32)
		switch s {
		case "+Inf":
			return ".inf"
		case "-Inf":
			return "-.inf"
		case "NaN":
			return ".nan"
		}
		return s
	case bool:
		if t {
			return "true"
		}
		return "false"
	}
	return fmt.Sprint(k)
}
