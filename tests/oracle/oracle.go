// Command oracle answers, for many input files per process, what Kubernetes' own code makes of them: kubectl's
// reading of a file (the YAMLOrJSONDecoder and YAMLReader of k8s.io/apimachinery/pkg/util/yaml, sigs.k8s.io/yaml's
// YAMLToJSON and YAMLToJSONStrict, unstructured.UnstructuredJSONScheme and list flattening), and the API server's
// create path for a custom resource of our CRD: strict JSON decoding (runtime/serializer/json), ObjectMeta coercion
// (schema/objectmeta), structural pruning with unknown-field paths (schema/pruning), pruning of non-nullable nulls
// and defaulting (schema/defaulting), then rest.BeforeCreate with apiextensions-apiserver's own custom-resource
// strategy: ObjectMeta validation, the OpenAPI schema (apiserver/validation), embedded resources, list-type
// invariants and the x-kubernetes-validations rules with the real cel-go, Kubernetes' CEL libraries and cost budget
// (apiserver/schema/cel).
//
// It is test code for kubectl-testbench's differential test (tests/oracle/test_differential.py), built in module
// mode (go.mod, go.sum beside this file) against the release the test control plane runs (kube-apiserver 1.35.4,
// staging modules v0.35.4). What is not called but reproduced is glue the API server keeps unexported, each
// citing its upstream file (kubernetes/kubernetes, staging/src/...):
//
//   - coerce:         k8s.io/apiextensions-apiserver/pkg/apiserver/customresource_handler.go
//     (unstructuredSchemaCoercer.apply, schemaCoercingDecoder.Decode with returnUnknownFieldPaths, as under
//     fieldValidation=Strict; unstructuredDefaulter)
//   - createObject:   k8s.io/apiserver/pkg/endpoints/handlers/create.go (system fields wiped, namespace from the
//     request) and k8s.io/apiserver/pkg/registry/generic/registry/store.go (system fields filled, name generated)
//     before rest.BeforeCreate; k8s.io/apiserver/pkg/storage/etcd3/store.go refuses a resourceVersion on create.
//   - flatten:        k8s.io/cli-runtime/pkg/resource/visitor.go (FlattenListVisitor: nested lists flattened with
//     meta.ExtractList; StreamVisitor skipping null documents)
//   - the walk of a JSON-prefixed stream (jsonStream) mirrors YAMLOrJSONDecoder.Decode's switch to YAML after a
//     syntax error in its first or second value, so that every document of the file is answered, not only those
//     before kubectl's first error; YAML streams are split by the real YAMLReader.
//
// Protocol: `oracle CRD.json` reads JSON lines on stdin and writes one JSON line per request on stdout, so one
// process answers thousands of files:
//
//	{"id": ..., "data": <base64 of a file>}            → {"id": ..., "docs": [Doc...]}
//	{"id": ..., "cel": {"schema": S, "value": V}}      → {"id": ..., "cel": {"errors": [FieldErr...]}}
//
// The second form validates the value V against the schema S (an apiextensions/v1 JSONSchemaProps whose
// x-kubernetes-validations hold the rules) with the API server's CEL validator, as for a field of a custom
// resource: the CEL differential test sends rules and values there.
package main

import (
	"bufio"
	"bytes"
	"context"
	gojson "encoding/json"
	stderrors "errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	yamlv3 "go.yaml.in/yaml/v3"
	textunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemacel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// ---- protocol ------------------------------------------------------------------------------------------

type request struct {
	ID   string      `json:"id"`
	Data []byte      `json:"data"` // the file's bytes (base64 in JSON)
	CEL  *celRequest `json:"cel,omitempty"`
}

type celRequest struct {
	Schema gojson.RawMessage `json:"schema"`
	Value  gojson.RawMessage `json:"value"`
}

type celAnswer struct {
	Errors []FieldErr `json:"errors"`
}

// FieldErr is one finding, with its field path as segments (strings and list indices).
type FieldErr struct {
	Type   string        `json:"type"`
	Path   []interface{} `json:"path"`
	Detail string        `json:"detail"`
	CEL    bool          `json:"cel,omitempty"` // an x-kubernetes-validations rule said so
	field  string        // the server's own path text, where it gave one
}

// Object is one object after kubectl's list flattening.
type Object struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Class      string     `json:"class"` // experiment | foreign | rejected
	Errors     []FieldErr `json:"errors"`
	// Body is the JSON kubectl sends for the object (after YAMLToJSON and list flattening): what the server-judged
	// test (tests/controlplane/test_server_parity.py) posts.
	Body string `json:"body,omitempty"`
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
	List        bool       `json:"list,omitempty"` // the document is a list, its items flattened into Objects
	Objects     []Object   `json:"objects"`
}

type response struct {
	ID   string     `json:"id"`
	Docs []Doc      `json:"docs"`
	CEL  *celAnswer `json:"cel,omitempty"`
}

// served is what the API server builds per served version of the CRD (customresource_handler.go,
// getOrCreateServingInfoFor).
type served struct {
	structural *structuralschema.Structural
	strategy   rest.RESTCreateStrategy
	cel        *schemacel.Validator
	kind       schema.GroupVersionKind
}

var crd struct {
	Group    string
	Kind     string
	Versions map[string]*served
}

// decoder is the request body decoder of a custom resource under fieldValidation=Strict.
var decoder = serializerjson.NewSerializerWithOptions(serializerjson.DefaultMetaFactory,
	unstructuredscheme.NewUnstructuredCreator(), unstructuredscheme.NewUnstructuredObjectTyper(),
	serializerjson.SerializerOptions{Strict: true})

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
			resp := response{ID: req.ID}
			if req.CEL != nil {
				resp.CEL = evaluateCEL(req.CEL)
			} else {
				resp.Docs = answer(req.Data)
			}
			if eerr := enc.Encode(resp); eerr != nil {
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
	v1 := &apiextensionsv1.CustomResourceDefinition{}
	if err := gojson.Unmarshal(data, v1); err != nil {
		return err
	}
	crd.Group, crd.Kind = v1.Spec.Group, v1.Spec.Names.Kind
	crd.Versions = map[string]*served{}
	for _, v := range v1.Spec.Versions {
		if !v.Served {
			continue
		}
		s, err := serve(v1, v)
		if err != nil {
			return fmt.Errorf("version %s: %w", v.Name, err)
		}
		crd.Versions[v.Name] = s
	}
	return nil
}

func serve(v1 *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) (*served, error) {
	internal := &apiextensionsinternal.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(
		v.Schema, internal, nil); err != nil {
		return nil, err
	}
	structural, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	structural = structural.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(structural); err != nil {
		return nil, err
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	var status *apiextensionsinternal.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	if v.Subresources != nil && v.Subresources.Status != nil {
		status = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		if statusSchema, ok := internal.OpenAPIV3Schema.Properties["status"]; ok {
			if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
				return nil, err
			}
		}
	}
	kind := schema.GroupVersionKind{Group: v1.Spec.Group, Version: v.Name, Kind: v1.Spec.Names.Kind}
	strategy := customresource.NewStrategy(crdserverscheme.NewUnstructuredObjectTyper(),
		v1.Spec.Scope == apiextensionsv1.NamespaceScoped, kind, validator, statusValidator, structural, status, nil,
		v.SelectableFields)
	return &served{structural: structural, strategy: strategy, kind: kind,
		cel: schemacel.NewValidator(structural, true, celconfig.PerCallLimit)}, nil
}

// ---- CEL on its own --------------------------------------------------------------------------------------

// evaluateCEL validates one value against one schema with the API server's CEL validator (as a field of a
// custom resource: not at the resource root).
func evaluateCEL(req *celRequest) *celAnswer {
	fail := func(kind string, err error) *celAnswer {
		return &celAnswer{Errors: []FieldErr{{Type: kind, Path: []interface{}{}, Detail: err.Error()}}}
	}
	v1 := &apiextensionsv1.JSONSchemaProps{}
	if err := gojson.Unmarshal(req.Schema, v1); err != nil {
		return fail("BadSchema", err)
	}
	internal := &apiextensionsinternal.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, internal, nil); err != nil {
		return fail("BadSchema", err)
	}
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		return fail("BadSchema", err)
	}
	var value interface{}
	if err := utiljson.Unmarshal(req.Value, &value); err != nil {
		return fail("BadValue", err)
	}
	validator := schemacel.NewValidator(structural, false, celconfig.PerCallLimit)
	answer := &celAnswer{Errors: []FieldErr{}}
	if validator == nil {
		return answer
	}
	errs, _ := validator.Validate(context.Background(), nil, structural, value, nil, celconfig.RuntimeCELCostBudget)
	for _, e := range errs {
		answer.Errors = append(answer.Errors, FieldErr{Type: string(e.Type), Path: fieldPath(e.Field),
			Detail: e.ErrorBody(), CEL: true})
	}
	return answer
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
	if utilyaml.IsJSONBuffer(data) {
		docs, failedAt := jsonStream(data)
		// YAMLOrJSONDecoder: when the first or second value is no JSON (a syntax error), the stream is read as
		// YAML from that value on; the JSON error stands only when YAML fails too.
		if failedAt >= 0 && len(docs) <= 2 {
			var rest []Doc
			ok := true
			for i, c := range splitYAML(data[failedAt:]) {
				doc := yamlDoc(len(docs)-1+i, c)
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
	for i, c := range splitYAML(data) {
		docs = append(docs, yamlDoc(i, c))
	}
	return docs
}

type chunk struct {
	text []byte
	err  string
}

// splitYAML reads the documents with apimachinery's YAMLReader (documents are separated by lines starting with
// "---", only a comment may follow the marker, empty documents are not returned). Unlike kubectl, which stops at
// the first broken document, the oracle goes on, as the API server would receive each document on its own.
func splitYAML(data []byte) []chunk {
	var out []chunk
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		text, err := reader.Read()
		if err == io.EOF {
			return out
		}
		if err != nil {
			out = append(out, chunk{err: err.Error()})
			continue
		}
		out = append(out, chunk{text: append([]byte(nil), text...)})
	}
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
	doc.Objects, doc.List = objectsOf(raw)
	return doc
}

// jsonStream reads the values of a JSON stream as the JSON branch of YAMLOrJSONDecoder does (encoding/json);
// failedAt is where a value that is no JSON (a syntax error) starts, or -1.
func jsonStream(data []byte) (docs []Doc, failedAt int64) {
	dec := gojson.NewDecoder(bytes.NewReader(data))
	for i := 0; ; i++ {
		var ext runtime.RawExtension
		start := dec.InputOffset()
		err := dec.Decode(&ext)
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
		trimmed := bytes.TrimSpace(ext.Raw)
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
		doc.Objects, doc.List = objectsOf(trimmed)
		docs = append(docs, doc)
	}
}

var quoted = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"`)

// strictErr turns a sigs.k8s.io/json strict error (`duplicate field "a.b[0].c"`) into a field error.
func strictErr(kind string, err error, prefix []interface{}) FieldErr {
	path := append([]interface{}{}, prefix...)
	var fe kjson.FieldError
	if stderrors.As(err, &fe) {
		path = append(path, dottedPath(fe.FieldPath())...)
	} else if m := quoted.FindStringSubmatch(err.Error()); m != nil {
		path = append(path, dottedPath(m[1])...)
	}
	return FieldErr{Type: kind, Path: path, Detail: err.Error()}
}

var segment = regexp.MustCompile(`\[([^\]]*)\]|\.?([^.\[]+)`)

// dottedPath splits a field path as Kubernetes prints it ("spec.env[0].name", "metadata.labels[app]").
func dottedPath(text string) []interface{} {
	out := []interface{}{}
	for _, m := range segment.FindAllStringSubmatch(text, -1) {
		if m[0][0] == '[' {
			if n, err := strconv.Atoi(m[1]); err == nil {
				out = append(out, n)
			} else {
				out = append(out, m[1])
			}
		} else {
			out = append(out, m[2])
		}
	}
	return out
}

// resolvePath reads a path text against the object it names, so that keys holding '.', '[' or ']' stay whole
// (the pruner joins keys with '.' unescaped: "spec.x##[a]z" is the key "x##[a]z"); nil when it names nothing.
func resolvePath(x interface{}, text string) []interface{} {
	if text == "" {
		return []interface{}{}
	}
	switch x := x.(type) {
	case map[string]interface{}:
		rest := strings.TrimPrefix(text, ".")
		for k, v := range x {
			for _, form := range []string{k, "[" + k + "]"} {
				if !strings.HasPrefix(rest, form) {
					continue
				}
				tail := rest[len(form):]
				if tail != "" && tail[0] != '.' && tail[0] != '[' {
					continue
				}
				if sub := resolvePath(v, tail); sub != nil {
					return append([]interface{}{k}, sub...)
				}
			}
		}
	case []interface{}:
		if m := indexPrefix.FindStringSubmatch(text); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n < len(x) {
				if sub := resolvePath(x[n], text[len(m[0]):]); sub != nil {
					return append([]interface{}{n}, sub...)
				}
			}
		}
	}
	return nil
}

var indexPrefix = regexp.MustCompile(`^\[(\d+)\]`)

// pathIn is the path text resolved against the first of the objects that holds it, else split at '.' and '['.
func pathIn(text string, objects ...interface{}) []interface{} {
	if text == "<nil>" || text == "" {
		return []interface{}{}
	}
	for _, obj := range objects {
		if p := resolvePath(obj, text); p != nil {
			return p
		}
	}
	return dottedPath(text)
}

func fieldPath(text string) []interface{} {
	if text == "<nil>" || text == "" {
		return []interface{}{}
	}
	return dottedPath(text)
}

// ---- unstructured decoding and list flattening ------------------------------------------------------

func rejected(kind string, err error) []Object {
	return []Object{{Class: "rejected", Errors: []FieldErr{{Type: kind, Path: []interface{}{}, Detail: err.Error()}}}}
}

// objectsOf decodes one document as kubectl does (UnstructuredJSONScheme: an object with "items" is a list whose
// items without kind and apiVersion inherit them) and flattens lists (FlattenListVisitor).
func objectsOf(raw []byte) ([]Object, bool) {
	var top interface{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &top); err != nil {
		return rejected("Decode", err), false
	}
	if _, ok := top.(map[string]interface{}); !ok {
		return rejected("NotAnObject", fmt.Errorf("cannot unmarshal %T into an object", top)), false
	}
	decoded, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
	if err != nil {
		if runtime.IsMissingKind(err) {
			apiVersion, _ := top.(map[string]interface{})["apiVersion"].(string)
			o := rejected("MissingKind", err)
			o[0].APIVersion = apiVersion
			o[0].Errors[0].Path = []interface{}{"kind"}
			return o, false
		}
		return rejected("Decode", err), false
	}
	_, isList := decoded.(*unstructured.UnstructuredList)
	items, err := flatten(decoded)
	if err != nil {
		return rejected("Decode", err), isList
	}
	out := []Object{}
	for _, item := range items {
		out = append(out, createObject(item))
	}
	return out, isList
}

// flatten: FlattenListVisitor (nested lists are flattened too, their items as they are).
func flatten(obj runtime.Object) ([]*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok && !u.IsList() {
		return []*unstructured.Unstructured{u}, nil
	}
	items, err := meta.ExtractList(obj)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	for _, item := range items {
		u, ok := item.(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("list item is %T", item)
		}
		nested, err := flatten(u)
		if err != nil {
			return nil, err
		}
		out = append(out, nested...)
	}
	return out, nil
}

// ---- the API server's create path for one custom resource ----------------------------------------------

func createObject(u *unstructured.Unstructured) Object {
	apiVersion, kind := u.GetAPIVersion(), u.GetKind()
	o := Object{APIVersion: apiVersion, Kind: kind, Class: "foreign", Errors: []FieldErr{}}
	if body, err := u.MarshalJSON(); err == nil {
		o.Body = string(body)
	}
	if kind == "" { // kubectl's typer (UnstructuredObjectTyper.ObjectKinds) refuses an item without kind
		o.Class = "rejected"
		o.Errors = append(o.Errors, FieldErr{Type: "MissingKind", Path: []interface{}{"kind"},
			Detail: runtime.NewMissingKindErr("object has no kind field ").Error()})
		return o
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		gv = schema.GroupVersion{Version: apiVersion}
	}
	if gv.Group != crd.Group {
		if gv.Group == "" && kind == crd.Kind { // the core group has no Experiment: no matches for kind
			o.Class = "rejected"
			o.Errors = append(o.Errors, noMatch(kind, apiVersion))
		}
		return o
	}
	version, ok := crd.Versions[gv.Version]
	if kind != crd.Kind || !ok || err != nil {
		o.Class = "rejected"
		o.Errors = append(o.Errors, noMatch(kind, apiVersion))
		return o
	}
	o.Class = "experiment"
	o.Errors = append(o.Errors, create(version, u)...)
	return o
}

func noMatch(kind, apiVersion string) FieldErr {
	return FieldErr{Type: "NoKindMatch", Path: []interface{}{},
		Detail: fmt.Sprintf("no matches for kind %q in version %q", kind, apiVersion)}
}

var composite = regexp.MustCompile(`^Invalid value: "": "(.+)" must validate `)

var jsonTypeField = regexp.MustCompile(`Go struct field \S*?\.(\S+) of type`)

// create sends the object as kubectl does (its JSON) through the server's decoding and create steps.
func create(v *served, in *unstructured.Unstructured) []FieldErr {
	var errs []FieldErr
	body, err := in.MarshalJSON()
	if err != nil {
		return []FieldErr{{Type: "Decode", Path: []interface{}{}, Detail: err.Error()}}
	}
	u := &unstructured.Unstructured{}
	_, _, err = decoder.Decode(body, nil, u)
	sent := runtime.DeepCopyJSONValue(u.Object)
	if err != nil {
		strict, ok := runtime.AsStrictDecodingError(err)
		if !ok {
			return []FieldErr{{Type: "Decode", Path: []interface{}{}, Detail: err.Error()}}
		}
		for _, e := range strict.Errors() {
			errs = append(errs, strictErr("FieldValueDuplicate", e, nil))
		}
	}
	unknown, err := coerce(v, u)
	if err != nil {
		path := []interface{}{"metadata"}
		if m := jsonTypeField.FindStringSubmatch(err.Error()); m != nil {
			path = append(path, dottedPath(m[1])...)
		}
		return append(errs, FieldErr{Type: "Decode", Path: path, Detail: err.Error()})
	}
	for _, p := range unknown {
		errs = append(errs, FieldErr{Type: "FieldValueUnknown", Path: pathIn(p, sent), Detail: fmt.Sprintf("unknown field %q", p)})
	}
	structuraldefaulting.Default(u.Object, v.structural) // unstructuredDefaulter

	// handlers/create.go, then Store.create
	requestNamespace := u.GetNamespace()
	if requestNamespace == "" {
		requestNamespace = metav1.NamespaceDefault // kubectl's namespace when the object has none
	}
	rest.WipeObjectMetaSystemFields(u)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(requestNamespace, u); err != nil {
		return append(errs, statusErrors(err)...)
	}
	rest.FillObjectMetaSystemFields(u)
	if u.GetGenerateName() != "" && u.GetName() == "" {
		u.SetName(v.strategy.GenerateName(u.GetGenerateName()))
	}
	ctx := genericapirequest.WithNamespace(context.Background(), requestNamespace)
	if err := rest.BeforeCreate(v.strategy, ctx, u); err != nil {
		found := markCEL(v, u, statusErrors(err))
		for i := range found {
			if found[i].field != "" && found[i].field != "<nil>" {
				found[i].Path = pathIn(found[i].field, u.Object, sent)
			} else if m := composite.FindStringSubmatch(found[i].Detail); m != nil {
				// ValidateCustomResource reports anyOf/oneOf failures at the root, naming the field in the message
				found[i].Path = pathIn(m[1], u.Object, sent)
			}
		}
		errs = append(errs, found...)
	}
	// the store's check, which a user meets once the errors above are fixed
	if rv, err := (storage.APIObjectVersioner{}).ObjectResourceVersion(u); err == nil && rv != 0 {
		errs = append(errs, FieldErr{Type: "BadRequest", Path: []interface{}{"metadata", "resourceVersion"},
			Detail: storage.ErrResourceVersionSetOnCreate.Error()})
	}
	return errs
}

// coerce is unstructuredSchemaCoercer.apply for a request (returnUnknownFieldPaths, no dropping of malformed
// metadata): ObjectMeta decoded strictly, unknown fields pruned and named, non-nullable nulls pruned, embedded
// ObjectMeta coerced, then kind, apiVersion and metadata restored.
func coerce(v *served, u *unstructured.Unstructured) ([]string, error) {
	kind, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return nil, err
	}
	objectMeta, foundObjectMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object,
		schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, err
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, v.structural, true,
		structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, v.structural, false,
		schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil { // a *field.Error: never compared to nil as an error interface
		return nil, ferr
	}
	unknown = append(unknown, paths...)
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundObjectMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// statusErrors turns the server's error into field errors: the causes of an Invalid error, else one error.
func statusErrors(err error) []FieldErr {
	var status apierrors.APIStatus
	if stderrors.As(err, &status) {
		s := status.Status()
		if s.Reason == metav1.StatusReasonInvalid && s.Details != nil && len(s.Details.Causes) > 0 {
			var out []FieldErr
			for _, c := range s.Details.Causes {
				out = append(out, FieldErr{Type: string(c.Type), Path: fieldPath(c.Field), Detail: c.Message, field: c.Field})
			}
			return out
		}
		return []FieldErr{{Type: string(s.Reason), Path: []interface{}{}, Detail: s.Message}}
	}
	return []FieldErr{{Type: "InternalError", Path: []interface{}{}, Detail: err.Error()}}
}

// markCEL flags the errors an x-kubernetes-validations rule produced (the same validator run again on the
// object as the strategy saw it).
func markCEL(v *served, u *unstructured.Unstructured, errs []FieldErr) []FieldErr {
	if v.cel == nil {
		return errs
	}
	celErrs, _ := v.cel.Validate(context.Background(), nil, v.structural, u.Object, nil, celconfig.RuntimeCELCostBudget)
	fromCEL := map[string]bool{}
	for _, e := range celErrs {
		fromCEL[e.Field+"\x00"+e.ErrorBody()] = true
	}
	for i := range errs {
		errs[i].CEL = fromCEL[errs[i].field+"\x00"+errs[i].Detail]
	}
	return errs
}

func appendPath(path []interface{}, seg interface{}) []interface{} {
	out := make([]interface{}, len(path), len(path)+1)
	copy(out, path)
	return append(out, seg)
}

// ---- duplicate keys: where YAMLToJSONStrict's "already set in map" errors are -------------------------

// yamlDuplicatePaths walks the document with yaml.v3's node tree (for positions only) and replays go-yaml v2's
// mapping decoding (decode.go mapping/merge/setMapIndex): entries in order, merges where they stand (a sequence
// of merged maps from last to first), every second write of a key is a strict error. Keys are resolved with
// go-yaml v2 itself (the fork sigs.k8s.io/yaml uses) and named as sigs.k8s.io/yaml names them in JSON.
func yamlDuplicatePaths(text []byte) []FieldErr {
	var root yamlv3.Node
	if err := yamlv3.Unmarshal(text, &root); err != nil || len(root.Content) == 0 {
		return nil
	}
	var out []FieldErr
	walkDuplicates(root.Content[0], []interface{}{}, &out)
	return out
}

func isMerge(k *yamlv3.Node) bool {
	return k.Kind == yamlv3.ScalarNode && k.Value == "<<" && k.Style == 0
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
				if isMerge(k) {
					for _, target := range mergeTargets(v) {
						set(target)
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
			if isMerge(k) {
				continue
			}
			if key := v2Key(k); key != nil {
				walkDuplicates(v, appendPath(path, jsonKey(key)), out)
			}
		}
	}
}

// mergeTargets: the maps a merge key merges, a sequence's from last to first.
func mergeTargets(v *yamlv3.Node) []*yamlv3.Node {
	if v.Kind == yamlv3.AliasNode {
		v = v.Alias
	}
	switch v.Kind {
	case yamlv3.MappingNode:
		return []*yamlv3.Node{v}
	case yamlv3.SequenceNode:
		var out []*yamlv3.Node
		for j := len(v.Content) - 1; j >= 0; j-- {
			item := v.Content[j]
			if item.Kind == yamlv3.AliasNode {
				item = item.Alias
			}
			if item.Kind == yamlv3.MappingNode {
				out = append(out, item)
			}
		}
		return out
	}
	return nil
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
