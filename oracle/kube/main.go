// Command kube-oracle is one multi-call binary holding an upstream Kubernetes
// control plane: etcd and the kube-apiserver, kube-scheduler and
// kube-controller-manager commands of k8s.io/kubernetes at the release go.mod pins
// (written by gen-gomod.sh). The component is the first argument
// (`kube-oracle kube-apiserver --etcd-servers=…`) or the name the binary was
// called by (a symlink named kube-apiserver). Each component runs exactly as its
// upstream main.go runs it; `kube-oracle version` prints what the binary holds.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	_ "time/tzdata" // for CronJob time zones, as kube-apiserver's and kube-controller-manager's main.go

	etcdversion "go.etcd.io/etcd/api/v3/version"
	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"          // JSON log format, as upstream main.go
	_ "k8s.io/component-base/metrics/prometheus/clientgo" // client-go metrics, as upstream main.go
	_ "k8s.io/component-base/metrics/prometheus/version"  // version metric, as upstream main.go
	"k8s.io/component-base/version"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// components maps a component name to its upstream entry point; each returns the
// process exit code and reads its arguments from os.Args[1:].
var components = map[string]func() int{
	"etcd": func() int {
		etcdmain.Main(os.Args) // as etcd's main.go; it exits the process itself on error
		return 0
	},
	"kube-apiserver":          func() int { return cli.Run(apiserver.NewAPIServerCommand()) },
	"kube-scheduler":          func() int { return cli.Run(scheduler.NewSchedulerCommand()) },
	"kube-controller-manager": func() int { return cli.Run(controllermanager.NewControllerManagerCommand()) },
}

func main() {
	name, args := filepath.Base(os.Args[0]), os.Args[1:]
	if _, ok := components[name]; !ok {
		if len(args) == 0 {
			usage()
			os.Exit(2)
		}
		name, args = args[0], args[1:]
	}
	if name == "version" || name == "--version" {
		printVersion()
		return
	}
	run, ok := components[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "kube-oracle: unknown component %q\n", name)
		usage()
		os.Exit(2)
	}
	// The upstream commands read os.Args[1:] (cobra, etcd's flag set): give each the
	// argv its own binary would have seen.
	os.Args = append([]string{name}, args...)
	os.Exit(run())
}

func names() []string {
	list := make([]string, 0, len(components))
	for n := range components {
		list = append(list, n)
	}
	sort.Strings(list)
	return list
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: kube-oracle COMPONENT [ARGS...] | kube-oracle version")
	fmt.Fprintf(os.Stderr, "components: %v (also picked by the name the binary is called by)\n", names())
}

func printVersion() {
	v := version.Get()
	fmt.Printf("kubernetes %s (major %s, minor %s, commit %q, tree %s, built %s)\n",
		v.GitVersion, v.Major, v.Minor, v.GitCommit, v.GitTreeState, v.BuildDate)
	fmt.Printf("etcd %s\n", etcdversion.Version)
	fmt.Printf("go %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Printf("components %v\n", names())
}
