// Command testkube_resolve prints each step of a TestWorkflow as Testkube 2.12.2's own code resolves it, in the
// JSON shape of `kubectl-testbench render --resolve -o json` (a ResolvedWorkflowList), so the two can be
// compared step by step (tests/render/test_resolve_testkube.py; scripts/testkube-resolve builds and runs it).
//
// Usage: testkube_resolve FILE... (YAML or JSON; every TestWorkflow, TestWorkflowTemplate and ConfigMap in them)
//
// Every decision is Testkube's; the glue here only feeds its functions and reads what they return:
//
//  1. pkg/controlplane/scheduling/enqueuer.go order, as IntermediateExecution (testworkflowexecutor/prepared.go)
//     runs it: ApplyConfig (testworkflowresolver.ApplyWorkflowConfig with no run config), ApplyTemplates
//     (testworkflowresolver.ApplyTemplates, then simplifyCr with the workflow machine), Resolve (the workflow,
//     resource and execution machines of testworkflowconfig with our stated placeholder values).
//  2. testworkflowprocessor.(*processor).Bundle's first part: the Intermediate layer with constants
//     .DefaultContainerConfig (CI=1) applied to the container defaults, its machines, expressions.Simplify, the
//     root step (content, container, setup+steps+after) processed by presets.NewOpenSource's operations.
//  3. action/process.go: each container stage's container Detach()-ed and Resolve()-d with those machines.
//  4. cmd/testworkflow-init: what is left in command/args/env is computed at run time with the step's env
//     (orchestration/setup.go localEnvMachine; commands/run.go) and expressions.FinalizerFail. Glue: an env
//     variable set from a reference, or not set at all, is reported as unresolvable instead of read from the
//     pod's environment (which only exists in the cluster).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	testworkflowsv1 "github.com/kubeshop/testkube/api/testworkflows/v1"
	"github.com/kubeshop/testkube/pkg/expressions"
	"github.com/kubeshop/testkube/pkg/testworkflows/testworkflowconfig"
	"github.com/kubeshop/testkube/pkg/testworkflows/testworkflowprocessor"
	"github.com/kubeshop/testkube/pkg/testworkflows/testworkflowprocessor/constants"
	"github.com/kubeshop/testkube/pkg/testworkflows/testworkflowprocessor/presets"
	"github.com/kubeshop/testkube/pkg/testworkflows/testworkflowprocessor/stage"
	"github.com/kubeshop/testkube/pkg/testworkflows/testworkflowresolver"
)

// The placeholders kubectl_testbench/render/resolve/model.py ExecutionContext states (defaults).
const (
	executionID = "000000000000000000000001"
	scheduledAt = "2000-01-01T00:00:00.000Z"
)

type object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	raw []byte
}

type output struct {
	APIVersion   string            `json:"apiVersion"`
	Kind         string            `json:"kind"`
	Placeholders map[string]string `json:"placeholders"`
	Items        []workflowOut     `json:"items"`
	Errors       []errorOut        `json:"errors,omitempty"`
}

type errorOut struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Error     string `json:"error"`
}

type workflowOut struct {
	Kind     string            `json:"kind"`
	Metadata map[string]string `json:"metadata"`
	Steps    []stepOut         `json:"steps"`
}

type envOut struct {
	Value     *string              `json:"value,omitempty"`
	ValueFrom *corev1.EnvVarSource `json:"valueFrom,omitempty"`
}

type fileOut struct {
	Path    string                 `json:"path"`
	Source  map[string]interface{} `json:"source"`
	Content *string                `json:"content,omitempty"`
}

type stepOut struct {
	Name                string            `json:"name"`
	Template            string            `json:"template"`
	Image               string            `json:"image"`
	ImagePullPolicy     string            `json:"imagePullPolicy"`
	Command             []string          `json:"command"`
	EntrypointFromImage bool              `json:"entrypointFromImage"`
	Args                []string          `json:"args"`
	WorkingDir          string            `json:"workingDir"`
	Env                 orderedEnv        `json:"env"`
	Files               []fileOut         `json:"files"`
	Artifacts           []string          `json:"artifacts"`
	envTemplates        map[string]string `json:"-"`
}

// orderedEnv keeps the container's order when printed (a Go map would sort the names).
type orderedEnv struct {
	names  []string
	values map[string]envOut
}

func (e orderedEnv) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, name := range e.names {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		v, err := json.Marshal(e.values[name])
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func readObjects(paths []string) ([]object, error) {
	var out []object
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
		for {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if len(raw) == 0 || string(raw) == "null" {
				continue
			}
			var o object
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			if o.Kind == "List" {
				var list struct{ Items []json.RawMessage }
				if err := json.Unmarshal(raw, &list); err != nil {
					return nil, err
				}
				for _, item := range list.Items {
					var io object
					if err := json.Unmarshal(item, &io); err != nil {
						return nil, err
					}
					io.raw = item
					out = append(out, io)
				}
				continue
			}
			o.raw = raw
			out = append(out, o)
		}
	}
	return out, nil
}

// origins is glue: the TestWorkflowTemplate each top-level step comes from, in the order
// testworkflowresolver/apply.go injectTemplateToSpec leaves them (uses applied last to first: every template's
// setup and steps before the workflow's, its after behind the workflow's, so afters in reverse use order).
func origins(wf *testworkflowsv1.TestWorkflow, templates map[string]*testworkflowsv1.TestWorkflowTemplate) []string {
	var setup, steps, after []string
	for range wf.Spec.Setup {
		setup = append(setup, "")
	}
	for range wf.Spec.Steps {
		steps = append(steps, "")
	}
	for range wf.Spec.After {
		after = append(after, "")
	}
	for i := len(wf.Spec.Use) - 1; i >= 0; i-- {
		name := wf.Spec.Use[i].Name
		tpl := templates[testworkflowresolver.GetInternalTemplateName(name)]
		if tpl == nil {
			continue
		}
		setup = append(repeat(name, len(tpl.Spec.Setup)), setup...)
		steps = append(repeat(name, len(tpl.Spec.Steps)), steps...)
		after = append(after, repeat(name, len(tpl.Spec.After))...)
	}
	return append(setup, append(steps, after...)...)
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// runtimeMachine is cmd/testworkflow-init/orchestration/setup.go's localEnvMachine over the step's env, minus the
// pod's environment (glue: unknown offline, so such a name stays unresolved and FinalizerFail reports it).
func runtimeMachine(env []testworkflowsv1.EnvVar) expressions.Machine {
	templates := map[string]string{}
	for _, e := range env {
		if e.ValueFrom == nil {
			templates[e.Name] = e.Value
		} else {
			delete(templates, e.Name)
		}
	}
	var machine expressions.Machine
	var resolving = map[string]bool{}
	machine = expressions.NewMachine().RegisterAccessorExt(func(name string) (interface{}, bool, error) {
		if !strings.HasPrefix(name, "env.") {
			return nil, false, nil
		}
		name = name[4:]
		tpl, ok := templates[name]
		if !ok {
			return nil, false, nil
		}
		if resolving[name] {
			return nil, false, fmt.Errorf("env.%s refers to itself", name)
		}
		resolving[name] = true
		defer delete(resolving, name)
		v, err := expressions.CompileAndResolveTemplate(tpl, machine, expressions.FinalizerFail)
		return v, true, err
	})
	return machine
}

func finalize(text string, m expressions.Machine) (string, error) {
	v, err := expressions.CompileAndResolveTemplate(text, m, expressions.FinalizerFail)
	if err != nil {
		return "", err
	}
	s, err := v.Static().StringValue()
	return s, err
}

func resolve(wf *testworkflowsv1.TestWorkflow, templates map[string]*testworkflowsv1.TestWorkflowTemplate,
	configMaps map[string]map[string]string) (workflowOut, error) {
	out := workflowOut{Kind: "ResolvedWorkflow", Metadata: map[string]string{"name": wf.Name, "namespace": wf.Namespace}}
	from := origins(wf, templates)

	// 1. The execution path (enqueuer.go: ApplyConfig, ApplyTemplates, Resolve)
	if _, err := testworkflowresolver.ApplyWorkflowConfig(wf, nil, nil); err != nil {
		return out, err
	}
	if err := testworkflowresolver.ApplyTemplates(wf, templates, nil); err != nil {
		return out, err
	}
	crMachine := testworkflowconfig.CreateWorkflowMachine(&testworkflowconfig.WorkflowConfig{Name: wf.Name, Labels: wf.Labels})
	if err := expressions.Simplify(wf, crMachine); err != nil {
		return out, err
	}
	executionMachine := testworkflowconfig.CreateExecutionMachine(&testworkflowconfig.ExecutionConfig{
		Id: executionID, GroupId: executionID, Name: wf.Name + "-1", Number: 1, Tags: map[string]string{},
	})
	resourceConfig := testworkflowconfig.ResourceConfig{Id: executionID, RootId: executionID}
	resourceMachine := testworkflowconfig.CreateResourceMachine(&resourceConfig)
	if err := expressions.Simplify(wf, crMachine, resourceMachine, executionMachine); err != nil {
		return out, err
	}

	// 2. processor.go Bundle's first part
	layer := testworkflowprocessor.NewIntermediate("").AppendPodConfig(wf.Spec.Pod).AppendJobConfig(wf.Spec.Job).AppendPvcs(wf.Spec.Pvcs)
	layer.ContainerDefaults().ApplyCR(constants.DefaultContainerConfig.DeepCopy())
	machines := []expressions.Machine{
		crMachine, executionMachine,
		testworkflowconfig.CreateWorkerMachine(&testworkflowconfig.WorkerConfig{}),
		resourceMachine,
		testworkflowconfig.CreateCloudMachine(&testworkflowconfig.ControlPlaneConfig{}, "", ""),
	}
	if err := expressions.Simplify(&wf, machines...); err != nil {
		return out, fmt.Errorf("error while simplifying workflow instructions: %w", err)
	}
	all := append(wf.Spec.Setup, append(wf.Spec.Steps, wf.Spec.After...)...)
	rootStep := testworkflowsv1.Step{
		StepSource:   testworkflowsv1.StepSource{Content: wf.Spec.Content},
		Services:     wf.Spec.Services,
		StepDefaults: testworkflowsv1.StepDefaults{Container: wf.Spec.Container},
		Steps:        all,
	}
	p := presets.NewOpenSource(nil).(testworkflowprocessor.InternalProcessor)
	root, err := p.Process(layer, layer.ContainerDefaults(), rootStep)
	if err != nil {
		return out, fmt.Errorf("processing error: %w", err)
	}
	if len(from) != len(all) {
		return out, fmt.Errorf("glue: %d steps after ApplyTemplates, %d expected from the templates", len(all), len(from))
	}
	// The root group's children are the top-level steps: groupstage.go Add flattens the virtual group of the
	// nested steps into the root, and a step's group of one container into that container.
	stepStages := root.(stage.GroupStage).Children()
	if len(stepStages) != len(all) {
		return out, fmt.Errorf("glue: %d processed top-level stages for %d steps", len(stepStages), len(all))
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range layer.Volumes() {
		if err := expressions.FinalizeForce(&v, machines...); err != nil {
			return out, err
		}
		volumes[v.Name] = v
	}
	inline := map[string]map[string]string{}
	for _, cm := range layer.ConfigMaps() {
		if err := expressions.FinalizeForce(&cm, machines...); err != nil {
			return out, err
		}
		inline[cm.Name] = cm.Data
	}

	for i, st := range stepStages {
		var runs []stage.ContainerStage
		for _, cs := range st.ContainerStages() {
			if !cs.IsToolkit() {
				runs = append(runs, cs)
			}
		}
		if len(runs) != 1 {
			return out, fmt.Errorf("step %d: %d run containers (render --resolve shows one run per step)", i, len(runs))
		}
		// 3. action/process.go
		c := runs[0].Container().Detach()
		if err := c.Resolve(machines...); err != nil {
			return out, fmt.Errorf("step %d: %w", i, err)
		}
		cfg := c.ToContainerConfig()
		if err := expressions.FinalizeForce(&cfg.VolumeMounts, machines...); err != nil {
			return out, err
		}
		// 4. testworkflow-init at run time
		rm := runtimeMachine(cfg.Env)
		s := stepOut{Name: all[i].Name, Template: from[i], Image: cfg.Image, ImagePullPolicy: string(cfg.ImagePullPolicy),
			Command: []string{}, Args: []string{}, Env: orderedEnv{values: map[string]envOut{}}, Files: []fileOut{},
			Artifacts: []string{}}
		if s.Name == "" {
			s.Name = fmt.Sprintf("step-%d", i)
		}
		s.EntrypointFromImage = cfg.Command == nil
		if cfg.Command != nil {
			for _, t := range *cfg.Command {
				v, err := finalize(t, rm)
				if err != nil {
					return out, fmt.Errorf("step %d command: %w", i, err)
				}
				s.Command = append(s.Command, v)
			}
		}
		if cfg.Args != nil {
			for _, t := range *cfg.Args {
				v, err := finalize(t, rm)
				if err != nil {
					return out, fmt.Errorf("step %d args: %w", i, err)
				}
				s.Args = append(s.Args, v)
			}
		}
		workingDir := ""
		if cfg.WorkingDir != nil {
			if workingDir, err = finalize(*cfg.WorkingDir, rm); err != nil {
				return out, fmt.Errorf("step %d workingDir: %w", i, err)
			}
		}
		s.WorkingDir = workingDir
		for _, e := range cfg.Env {
			if e.ValueFrom != nil {
				s.Env.values[e.Name] = envOut{ValueFrom: e.ValueFrom}
			} else {
				v, err := finalize(e.Value, rm)
				if err != nil {
					return out, fmt.Errorf("step %d env %s: %w", i, e.Name, err)
				}
				s.Env.values[e.Name] = envOut{Value: &v}
			}
			s.Env.names = append(s.Env.names, e.Name)
		}
		// processor.go Bundle: relative mount paths are taken from the working dir, /data by default
		base := constants.DefaultDataPath
		if workingDir != "" {
			base = workingDir
		}
		for _, vm := range cfg.VolumeMounts {
			vol, ok := volumes[vm.Name]
			if !ok || vol.EmptyDir != nil {
				continue
			}
			path := vm.MountPath
			if !filepath.IsAbs(path) {
				path = filepath.Clean(filepath.Join(base, path))
			}
			f := fileOut{Path: path}
			switch {
			case vol.ConfigMap != nil && inline[vol.ConfigMap.Name] != nil:
				// processor.go Bundle: the ConfigMap of inline files is FinalizeForce-d; its data is the file
				content := inline[vol.ConfigMap.Name][vm.SubPath]
				f.Source = map[string]interface{}{"inline": true}
				f.Content = &content
			case vol.ConfigMap != nil:
				key := vol.ConfigMap.Items[0].Key
				f.Source = map[string]interface{}{"configMapKeyRef": map[string]interface{}{"name": vol.ConfigMap.Name, "key": key}}
				if data, ok := configMaps[wf.Namespace+"/"+vol.ConfigMap.Name]; ok {
					if content, ok := data[key]; ok {
						f.Content = &content
					}
				}
			case vol.Secret != nil:
				f.Source = map[string]interface{}{"secretKeyRef": map[string]interface{}{"name": vol.Secret.SecretName, "key": vol.Secret.Items[0].Key}}
			default:
				f.Source = map[string]interface{}{"other": vm.Name}
			}
			s.Files = append(s.Files, f)
		}
		if all[i].Artifacts != nil {
			for _, t := range all[i].Artifacts.Paths {
				v, err := finalize(t, rm)
				if err != nil {
					return out, fmt.Errorf("step %d artifacts: %w", i, err)
				}
				s.Artifacts = append(s.Artifacts, v)
			}
		}
		out.Steps = append(out.Steps, s)
	}
	return out, nil
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: testkube_resolve FILE...")
		os.Exit(2)
	}
	objects, err := readObjects(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "testkube_resolve:", err)
		os.Exit(2)
	}
	templates := map[string]*testworkflowsv1.TestWorkflowTemplate{}
	configMaps := map[string]map[string]string{}
	var workflows []*testworkflowsv1.TestWorkflow
	for _, o := range objects {
		switch o.Kind {
		case "TestWorkflowTemplate":
			var t testworkflowsv1.TestWorkflowTemplate
			if err := json.Unmarshal(o.raw, &t); err != nil {
				fmt.Fprintln(os.Stderr, "testkube_resolve:", err)
				os.Exit(2)
			}
			templates[testworkflowresolver.GetInternalTemplateName(t.Name)] = &t
		case "TestWorkflow":
			var w testworkflowsv1.TestWorkflow
			if err := json.Unmarshal(o.raw, &w); err != nil {
				fmt.Fprintln(os.Stderr, "testkube_resolve:", err)
				os.Exit(2)
			}
			workflows = append(workflows, &w)
		case "ConfigMap":
			var cm corev1.ConfigMap
			if err := json.Unmarshal(o.raw, &cm); err == nil {
				configMaps[cm.Namespace+"/"+cm.Name] = cm.Data
			}
		}
	}
	doc := output{APIVersion: "testbench.agentic-layer.ai/v1alpha1", Kind: "ResolvedWorkflowList", Items: []workflowOut{},
		Placeholders: map[string]string{"execution.id": executionID, "execution.scheduledAt": scheduledAt}}
	for _, wf := range workflows {
		item, err := resolve(wf, templates, configMaps)
		if err != nil {
			doc.Errors = append(doc.Errors, errorOut{Namespace: wf.Namespace, Name: wf.Name, Error: err.Error()})
			continue
		}
		doc.Items = append(doc.Items, item)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(doc); err != nil {
		fmt.Fprintln(os.Stderr, "testkube_resolve:", err)
		os.Exit(2)
	}
	if len(doc.Errors) > 0 {
		os.Exit(1)
	}
}
