#!/bin/bash
set -euo pipefail
cat > /app/backup.sh <<'EOF'
#!/bin/bash
# Usage: backup.sh SOURCE_DIR DEST_DIR
set -euo pipefail
if [ "$#" -ne 2 ]; then
  echo "usage: backup.sh SOURCE_DIR DEST_DIR" >&2
  exit 2
fi
SRC=$1
DEST=$2
if [ ! -d "$SRC" ]; then
  echo "backup.sh: $SRC is not a directory" >&2
  exit 2
fi
mkdir -p -- "$DEST"
DEST_ABS=$(cd -- "$DEST" && pwd)
NAME=$(basename -- "$(cd -- "$SRC" && pwd)")
tar -C "$SRC" -cf "$DEST_ABS/$NAME.tar" .
echo "$DEST_ABS/$NAME.tar"
EOF
chmod +x /app/backup.sh
