//go:build tools

// Package oracle names the containerd 2.x commands the wrapper module builds.
// scripts/oracle-containerd.sh copies this file next to a go.mod it generates
// from the wanted version's own go.mod (its exclude and replace lines), so the
// build resolves the same dependencies containerd's release does.
package oracle

import (
	_ "github.com/containerd/containerd/v2/cmd/containerd"
	_ "github.com/containerd/containerd/v2/cmd/ctr"
)
