#!/bin/bash
set -euo pipefail
cat > /app/greet.sh <<'SCRIPT'
#!/bin/bash
name=""
[ -f /app/config.txt ] && name=$(tr -d '\n' < /app/config.txt)
if [ -z "$name" ]; then echo "hello"; else echo "Hello, ${name}!"; fi
SCRIPT
chmod +x /app/greet.sh
