#!/usr/bin/env bash
# Builds the Vitess servers the Vitess e2e test and quick start use (vtgate, vttablet, vtctld,
# vtctldclient) from the Go module proxy, cached under $STRATA_VITESS_HOME (default
# $HOME/.cache/strata-vitess/<version>/bin). A second call with the binaries present does nothing.
# `go install vitess.io/vitess/go/cmd/vtgate@vX` is refused (Vitess' go.mod has exclude
# directives), so the module is downloaded and built inside a writable copy of it.
# Prints the bin directory on stdout.
set -euo pipefail
VERSION="${STRATA_VITESS_VERSION:-v0.24.4}"
HOME_DIR="${STRATA_VITESS_HOME:-$HOME/.cache/strata-vitess}/$VERSION"
BIN="$HOME_DIR/bin"
CMDS=(vtgate vttablet vtctld vtctldclient)

have_all() {
  for c in "${CMDS[@]}"; do [ -x "$BIN/$c" ] || return 1; done
}
if have_all; then echo "$BIN"; exit 0; fi

# Vitess' go.mod names the Go it needs; a go >= 1.21 fetches that toolchain from the Go proxy by
# itself (GOTOOLCHAIN=auto). An older or missing go (Debian 12's golang-go is 1.19) cannot: the
# toolchain's module zip is then fetched from the proxy here, as the go command would.
GOPROXY_URL="${STRATA_GOPROXY:-https://proxy.golang.org}"
go_minor() { go version 2>/dev/null | sed -n 's/.* go1\.\([0-9]*\).*/\1/p'; }
if [ "$(go_minor)" = "" ] || [ "$(go_minor)" -lt 21 ]; then
  WANT="$(curl -sfL "$GOPROXY_URL/vitess.io/vitess/@v/$VERSION.mod" | sed -n 's/^go //p')"
  [ -n "$WANT" ] || { echo "build.sh: cannot read Vitess' go.mod from $GOPROXY_URL" >&2; exit 1; }
  case "$(uname -m)" in x86_64) ARCH=amd64 ;; aarch64) ARCH=arm64 ;; *) ARCH="$(uname -m)" ;; esac
  TC="$(dirname "$HOME_DIR")/go$WANT"
  if [ ! -x "$TC/bin/go" ]; then
    echo "build.sh: fetching Go $WANT from $GOPROXY_URL" >&2
    rm -rf "$TC.tmp" && mkdir -p "$TC.tmp"
    curl -sfL -o "$TC.tmp/tc.zip" \
      "$GOPROXY_URL/golang.org/toolchain/@v/v0.0.1-go$WANT.linux-$ARCH.zip"
    python3 -m zipfile -e "$TC.tmp/tc.zip" "$TC.tmp"
    mv "$TC.tmp/golang.org/toolchain@v0.0.1-go$WANT.linux-$ARCH" "$TC"
    chmod -R u+x "$TC/bin" "$TC/pkg/tool"
    rm -rf "$TC.tmp"
  fi
  export PATH="$TC/bin:$PATH" GOROOT="$TC"
fi
export GOTOOLCHAIN=auto GOFLAGS="-buildvcs=false -mod=mod"
echo "build.sh: building Vitess $VERSION (${CMDS[*]}) into $BIN" >&2
SRC="$(cd /tmp && go mod download -json "vitess.io/vitess@$VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
[ -d "$SRC" ] || { echo "build.sh: go mod download of vitess.io/vitess@$VERSION failed" >&2; exit 1; }
WORK="$HOME_DIR/src"
rm -rf "$WORK" && mkdir -p "$HOME_DIR" && cp -r "$SRC" "$WORK" && chmod -R u+w "$WORK"
cd "$WORK"
go mod download
pkgs=(); for c in "${CMDS[@]}"; do pkgs+=("./go/cmd/$c"); done
GOBIN="$BIN.tmp" go install -trimpath -ldflags "-s -w" "${pkgs[@]}"
rm -rf "$BIN" && mv "$BIN.tmp" "$BIN" && rm -rf "$WORK"
have_all
echo "$BIN"
