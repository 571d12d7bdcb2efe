// Argo CD's real config-management-plugin server, and a client that speaks to it as Argo CD's repo-server does.
//
// The tests of tests/integrations/test_argocd_cmp_server.py run this one binary two ways:
//
//	argocd-cmp serve --config-dir-path DIR   the sidecar: Argo CD's argocd-cmp-server command
//	                                         (cmd/argocd-cmp-server/commands), listening on
//	                                         $ARGOCD_PLUGINSOCKFILEPATH/<plugin name>.sock
//	argocd-cmp client < request.json         one repo-server call, answered as JSON on stdout
//
// The client holds no protocol code of its own: discovery is util/app/discovery.DetectConfigManagementPlugin, the
// repository goes over the stream with util/cmp.SendRepoStream, the environment is built from Argo CD's own
// v1alpha1 types the way reposerver/repository builds it (newEnv, getPluginEnvs, getPluginParamEnvs are
// unexported there, so their few lines are repeated below, naming each), and the manifests are read back with
// gitops-engine's kube.SplitYAML as runConfigManagementPluginSidecars reads them.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/gitops-engine/pkg/utils/kube"
	cmpserver "github.com/argoproj/argo-cd/v3/cmd/argocd-cmp-server/commands"
	pluginclient "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"github.com/argoproj/argo-cd/v3/common"
	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	repoclient "github.com/argoproj/argo-cd/v3/reposerver/apiclient"
	"github.com/argoproj/argo-cd/v3/util/app/discovery"
	"github.com/argoproj/argo-cd/v3/util/cmp"
	utilio "github.com/argoproj/argo-cd/v3/util/io"
	grpc_retry "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/retry"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"
	k8sversion "k8s.io/apimachinery/pkg/util/version"
)

// request is one repo-server call. AppPath is the Application's directory inside RepoPath (the checkout).
type request struct {
	Op             string                            `json:"op"`     // match | parameters | generate
	Socket         string                            `json:"socket"` // the plugin's socket file name, for match
	RepoPath       string                            `json:"repoPath"`
	AppPath        string                            `json:"appPath"`
	TimeoutSeconds float64                           `json:"timeoutSeconds"` // the repo-server RPC deadline
	Plugin         *v1alpha1.ApplicationSourcePlugin `json:"plugin"`         // spec.source.plugin
	AppName        string                            `json:"appName"`
	Namespace      string                            `json:"namespace"` // spec.destination.namespace
	Project        string                            `json:"project"`
	RepoURL        string                            `json:"repoURL"`
	SourcePath     string                            `json:"sourcePath"`
	TargetRevision string                            `json:"targetRevision"`
	Revision       string                            `json:"revision"`
	KubeVersion    string                            `json:"kubeVersion"`
	APIVersions    []string                          `json:"apiVersions"`
}

// response is what the tests read. Error is the error text as the repo-server would receive it, Code its gRPC code.
type response struct {
	Detected           bool                                `json:"detected"`
	IsSupported        bool                                `json:"isSupported"`
	IsDiscoveryEnabled bool                                `json:"isDiscoveryEnabled"`
	Announcements      []*repoclient.ParameterAnnouncement `json:"announcements,omitempty"`
	Manifests          []string                            `json:"manifests,omitempty"`
	Objects            []map[string]any                    `json:"objects,omitempty"`
	Env                []string                            `json:"env,omitempty"`
	Error              string                              `json:"error,omitempty"`
	Code               string                              `json:"code,omitempty"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		command := cmpserver.NewCommand()
		command.SetArgs(os.Args[2:])
		if err := command.Execute(); err != nil {
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "client" {
		var req request
		if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
			fmt.Fprintln(os.Stderr, "reading the request:", err)
			os.Exit(2)
		}
		out := run(req)
		if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
			os.Exit(2)
		}
		return
	}
	fmt.Fprintln(os.Stderr, "usage: argocd-cmp serve [argocd-cmp-server flags] | argocd-cmp client < request.json")
	os.Exit(2)
}

func run(req request) response {
	ctx := context.Background()
	if req.TimeoutSeconds > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutSeconds*float64(time.Second)))
		defer cancel()
	}
	var out response
	var err error
	switch req.Op {
	case "match":
		err = match(ctx, req, &out)
	case "parameters":
		err = parameters(ctx, req, &out)
	case "generate":
		err = generate(ctx, req, &out)
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		out.Error = err.Error()
		if s, ok := status.FromError(err); ok { // also a status wrapped in the repo-server's message
			out.Code = s.Code().String()
		}
	}
	return out
}

func pluginName(req request) string {
	if req.Plugin == nil {
		return ""
	}
	return req.Plugin.Name
}

// match is discovery: DetectConfigManagementPlugin (which asks each socket's MatchRepository), then the same
// MatchRepository call on its own, to report the server's answer as it is (util/app/discovery.matchRepositoryCMP).
func match(ctx context.Context, req request, out *response) error {
	env, err := pluginParamEnvs(appDetailsEnv(req), req.Plugin)
	if err != nil {
		return err
	}
	conn, _, detectErr := discovery.DetectConfigManagementPlugin(ctx, req.AppPath, req.RepoPath, pluginName(req), env, nil)
	if detectErr == nil {
		out.Detected = true
		utilio.Close(conn)
	}
	socket := filepath.Join(common.GetPluginSockFilePath(), req.Socket)
	conn2, client, err := pluginclient.NewConfigManagementPluginClientSet(socket).NewConfigManagementPluginClient()
	if err != nil {
		return err
	}
	defer utilio.Close(conn2)
	stream, err := client.MatchRepository(ctx, grpc_retry.Disable())
	if err != nil {
		return err
	}
	if err := cmp.SendRepoStream(ctx, req.AppPath, req.RepoPath, stream, env, nil); err != nil {
		return err
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return err
	}
	out.IsSupported, out.IsDiscoveryEnabled = resp.GetIsSupported(), resp.GetIsDiscoveryEnabled()
	return nil
}

// parameters is reposerver/repository.populatePluginAppDetails: what the UI shows for the Application.
func parameters(ctx context.Context, req request, out *response) error {
	env, err := pluginParamEnvs(appDetailsEnv(req), req.Plugin)
	if err != nil {
		return err
	}
	conn, client, err := discovery.DetectConfigManagementPlugin(ctx, req.AppPath, req.RepoPath, pluginName(req), env, nil)
	if err != nil {
		return fmt.Errorf("failed to detect CMP for app: %w", err)
	}
	out.Detected = true
	defer utilio.Close(conn)
	stream, err := client.GetParametersAnnouncement(ctx, grpc_retry.Disable())
	if err != nil {
		return err
	}
	if err := cmp.SendRepoStream(ctx, req.AppPath, req.RepoPath, stream, env, nil); err != nil {
		return fmt.Errorf("error sending file to cmp-server: %w", err)
	}
	announcement, err := stream.CloseAndRecv()
	if err != nil {
		return fmt.Errorf("failed to get parameter announcement: %w", err)
	}
	out.Announcements = announcement.ParameterAnnouncements
	return nil
}

// generate is reposerver/repository.runConfigManagementPluginSidecars with generateManifestsCMP.
func generate(ctx context.Context, req request, out *response) error {
	env, err := pluginEnvs(req)
	if err != nil {
		return err
	}
	out.Env = env
	conn, client, err := discovery.DetectConfigManagementPlugin(ctx, req.AppPath, req.RepoPath, pluginName(req), env, nil)
	if err != nil {
		return err
	}
	out.Detected = true
	defer utilio.Close(conn)
	if _, err := client.CheckPluginConfiguration(ctx, &emptypb.Empty{}); err != nil {
		return fmt.Errorf("error calling cmp-server checkPluginConfiguration: %w", err)
	}
	stream, err := client.GenerateManifest(ctx, grpc_retry.Disable())
	if err != nil {
		return fmt.Errorf("error getting generateManifestStream: %w", err)
	}
	tarDone := make(chan bool, 1)
	if err := cmp.SendRepoStream(ctx, req.AppPath, req.RepoPath, stream, env, nil, cmp.WithTarDoneChan(tarDone)); err != nil {
		return fmt.Errorf("error generating manifests in cmp: error sending file to cmp-server: %w", err)
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return fmt.Errorf("error generating manifests in cmp: %w", err)
	}
	out.Manifests = resp.Manifests
	for _, manifest := range resp.Manifests {
		objects, err := kube.SplitYAML([]byte(manifest))
		if err != nil {
			return fmt.Errorf("failed to convert CMP manifests to unstructured objects: %s", err.Error())
		}
		for _, object := range objects {
			out.Objects = append(out.Objects, object.Object)
		}
	}
	return nil
}

// appDetailsEnv is the environment populatePluginAppDetails starts from.
func appDetailsEnv(req request) []string {
	return []string{
		"ARGOCD_APP_NAME=" + req.AppName,
		"ARGOCD_APP_SOURCE_REPO_URL=" + req.RepoURL,
		"ARGOCD_APP_SOURCE_PATH=" + req.SourcePath,
		"ARGOCD_APP_SOURCE_TARGET_REVISION=" + req.TargetRevision,
	}
}

func shortenRevision(revision string, length int) string {
	if len(revision) > length {
		return revision[:length]
	}
	return revision
}

// pluginEnvs is reposerver/repository.newEnv followed by getPluginEnvs (with parseKubeVersion).
func pluginEnvs(req request) ([]string, error) {
	env := v1alpha1.Env{
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_NAME", Value: req.AppName},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_NAMESPACE", Value: req.Namespace},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_PROJECT_NAME", Value: req.Project},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_REVISION", Value: req.Revision},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_REVISION_SHORT", Value: shortenRevision(req.Revision, 7)},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_REVISION_SHORT_8", Value: shortenRevision(req.Revision, 8)},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_SOURCE_REPO_URL", Value: req.RepoURL},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_SOURCE_PATH", Value: req.SourcePath},
		&v1alpha1.EnvEntry{Name: "ARGOCD_APP_SOURCE_TARGET_REVISION", Value: req.TargetRevision},
	}
	kubeVersion := ""
	if req.KubeVersion != "" {
		parsed, err := k8sversion.ParseGeneric(req.KubeVersion)
		if err != nil {
			return nil, fmt.Errorf("could not parse kubernetes version %s: %w", req.KubeVersion, err)
		}
		kubeVersion = parsed.String()
	}
	envVars := env.Environ()
	envVars = append(envVars, "KUBE_VERSION="+kubeVersion)
	envVars = append(envVars, "KUBE_API_VERSIONS="+strings.Join(req.APIVersions, ","))
	return pluginParamEnvs(envVars, req.Plugin)
}

// pluginParamEnvs is reposerver/repository.getPluginParamEnvs: plugin env as ARGOCD_ENV_<name> (with $VAR
// substitution from the build environment), parameters as ARGOCD_APP_PARAMETERS and PARAM_<NAME>.
func pluginParamEnvs(envVars []string, plugin *v1alpha1.ApplicationSourcePlugin) ([]string, error) {
	env := envVars
	parsedEnv := make(v1alpha1.Env, len(env))
	for i, v := range env {
		parsedVar, err := v1alpha1.NewEnvEntry(v)
		if err != nil {
			return nil, errors.New("failed to parse env vars")
		}
		parsedEnv[i] = parsedVar
	}
	if plugin != nil {
		for _, entry := range plugin.Env {
			env = append(env, fmt.Sprintf("ARGOCD_ENV_%s=%s", entry.Name, parsedEnv.Envsubst(entry.Value)))
		}
		paramEnv, err := plugin.Parameters.Environ()
		if err != nil {
			return nil, fmt.Errorf("failed to generate env vars from parameters: %w", err)
		}
		env = append(env, paramEnv...)
	}
	return env, nil
}
