// Writes experiment.json for an inline dataset the way the upstream operator does: its structs (restated from
// experiment_controller.go@a8e16f1, declaration order and json tags are the specification) marshalled with
// encoding/json.MarshalIndent(exp, "", "  "). Raw fields (args, parameters, customValues) are json.RawMessage
// holding what the API server returns for them: the value re-encoded from a Go map, i.e. with sorted keys.
//
// Input on stdin: spec.dataset.inline as JSON (camelCase, as stored). Output: the operator's bytes.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

type experimentJSON struct {
	LLMAsAJudgeModel string         `json:"llm_as_a_judge_model,omitempty"`
	DefaultThreshold *float64       `json:"default_threshold,omitempty"`
	Scenarios        []scenarioJSON `json:"scenarios"`
}

type scenarioJSON struct {
	Name  string     `json:"name"`
	Steps []stepJSON `json:"steps"`
}

type stepJSON struct {
	Input        string          `json:"input"`
	Reference    *referenceJSON  `json:"reference,omitempty"`
	CustomValues json.RawMessage `json:"custom_values,omitempty"`
	Metrics      []metricJSON    `json:"metrics,omitempty"`
}

type referenceJSON struct {
	Response          string         `json:"response,omitempty"`
	ToolCalls         []toolCallJSON `json:"tool_calls,omitempty"`
	Topics            []string       `json:"topics,omitempty"`
	RetrievedContexts []string       `json:"retrieved_contexts,omitempty"`
}

type toolCallJSON struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type metricJSON struct {
	MetricName string          `json:"metric_name"`
	Threshold  float64         `json:"threshold,omitempty"`
	Parameters json.RawMessage `json:"parameters,omitempty"`
}

// The CRD types as the controller reads them (only what buildExperimentJSON uses).
type inline struct {
	LLMAsAJudgeModel string     `json:"llmAsAJudgeModel"`
	DefaultThreshold *float64   `json:"defaultThreshold"`
	Scenarios        []scenario `json:"scenarios"`
}

type scenario struct {
	Name  string `json:"name"`
	Steps []step `json:"steps"`
}

type step struct {
	Input        string          `json:"input"`
	Reference    *reference      `json:"reference"`
	CustomValues json.RawMessage `json:"customValues"`
	Metrics      []metric        `json:"metrics"`
}

type reference struct {
	Response          string     `json:"response"`
	ToolCalls         []toolCall `json:"toolCalls"`
	Topics            []string   `json:"topics"`
	RetrievedContexts []string   `json:"retrievedContexts"`
}

type toolCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type metric struct {
	MetricName string          `json:"metricName"`
	Threshold  float64         `json:"threshold"`
	Parameters json.RawMessage `json:"parameters"`
}

// stored re-encodes a raw value as the API server returns it: decoded into Go values (integers as int64,
// other numbers as float64) and marshalled again, which sorts object keys.
func stored(raw json.RawMessage) json.RawMessage {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var value interface{}
	if err := decoder.Decode(&value); err != nil {
		panic(err)
	}
	out, err := json.Marshal(numbers(value))
	if err != nil {
		panic(err)
	}
	return out
}

func numbers(value interface{}) interface{} {
	switch v := value.(type) {
	case map[string]interface{}:
		for k, item := range v {
			v[k] = numbers(item)
		}
	case []interface{}:
		for i, item := range v {
			v[i] = numbers(item)
		}
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	}
	return value
}

func main() {
	var in inline
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	exp := experimentJSON{LLMAsAJudgeModel: in.LLMAsAJudgeModel, DefaultThreshold: in.DefaultThreshold,
		Scenarios: make([]scenarioJSON, 0, len(in.Scenarios))}
	for _, sc := range in.Scenarios {
		sj := scenarioJSON{Name: sc.Name, Steps: make([]stepJSON, 0, len(sc.Steps))}
		for _, st := range sc.Steps {
			s := stepJSON{Input: st.Input}
			if st.Reference != nil {
				ref := &referenceJSON{Response: st.Reference.Response, Topics: st.Reference.Topics,
					RetrievedContexts: st.Reference.RetrievedContexts}
				for _, tc := range st.Reference.ToolCalls {
					ref.ToolCalls = append(ref.ToolCalls, toolCallJSON{Name: tc.Name, Args: stored(tc.Args)})
				}
				s.Reference = ref
			}
			if raw := stored(st.CustomValues); raw != nil {
				s.CustomValues = raw
			}
			for _, m := range st.Metrics {
				s.Metrics = append(s.Metrics, metricJSON{MetricName: m.MetricName, Threshold: m.Threshold,
					Parameters: stored(m.Parameters)})
			}
			sj.Steps = append(sj.Steps, s)
		}
		exp.Scenarios = append(exp.Scenarios, sj)
	}
	data, err := json.MarshalIndent(exp, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(data)
}
