#!/usr/bin/env bash
# like /work/shared/bench/pack-offline.sh, but keeps strata's symbol table (strip --strip-debug only);
# an optional third binary travels as strata-base (the "before" build of compare.sh)
set -euo pipefail
STRATA=${1:?}; OUTF=${2:?}; BASE=${3:-}
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
mkdir -p "$W"/{lib,lua,share,plugin}
cp "$STRATA" "$W/strata"; strip --strip-debug "$W/strata"
if [ -n "$BASE" ]; then cp "$BASE" "$W/strata-base"; strip --strip-debug "$W/strata-base"; fi
cp /usr/sbin/mariadbd /usr/bin/mariadb /usr/bin/sysbench "$W/"; strip "$W/mariadbd" || true
for b in /usr/bin/sysbench /usr/sbin/mariadbd /usr/bin/mariadb; do ldd "$b" | awk '/=>/{print $3}'; done |
  sort -u | grep -v -E 'libc\.so|libm\.so|libpthread|ld-linux|libresolv|libdl\.|librt\.' | xargs -I{} cp -L {} "$W/lib/"
cp /usr/share/sysbench/*.lua "$W/lua/"
cp -r /usr/share/mysql/english /usr/share/mysql/charsets "$W/share/"
cp /usr/lib/x86_64-linux-gnu/libmariadb3/plugin/*.so "$W/plugin/"
mariadb-install-db --no-defaults --datadir="$W/mdata" --user=root --auth-root-authentication-method=normal \
  --innodb-log-file-size=32M >/dev/null 2>&1
du -sh "$W"/*
tar cf - -C "$W" . | xz -T0 -9 > "$OUTF"
ls -la "$OUTF"
