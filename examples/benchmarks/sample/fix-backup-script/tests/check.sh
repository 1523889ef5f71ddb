#!/bin/bash
# Exercises /app/backup.sh; exits 0 when every requirement holds.
set -u
fail() { echo "check failed: $*"; exit 1; }
work=$(mktemp -d)
cd "$work" || exit 1
mkdir -p "my data/sub dir" "out dir"
echo one > "my data/a file.txt"
echo two > "my data/.hidden"
echo three > "my data/sub dir/nested.txt"
out=$(/app/backup.sh "my data" "out dir/backups") || fail "exit status $?"
[ -f "$work/out dir/backups/my data.tar" ] || fail "archive not at DEST_DIR/<name>.tar"
[ "$(printf '%s' "$out" | wc -l)" -eq 0 ] || fail "stdout should be one line"
[ -f "$out" ] || fail "printed path $out is not the archive"
list=$(tar -tf "$work/out dir/backups/my data.tar" | sed 's#^\./##' | grep -v '/$' | grep -v '^$' | sort)
expected=$(printf '%s\n' ".hidden" "a file.txt" "sub dir/nested.txt" | sort)
[ "$list" = "$expected" ] || fail "archive lists: $list"
mkdir x && (cd x && tar -xf "$work/out dir/backups/my data.tar") && [ "$(cat "x/sub dir/nested.txt")" = three ] || fail "content"
/app/backup.sh "/nonexistent dir" "$work/never" > "$work/stdout" 2> "$work/stderr"
status=$?
[ "$status" -eq 2 ] || fail "missing source: exit $status, want 2"
[ -s "$work/stderr" ] || fail "missing source: nothing on stderr"
[ ! -e "$work/never" ] || fail "missing source: created the destination"
rm -rf "$work"
exit 0
