#!/bin/bash
set -euo pipefail
cat > /app/greet.sh <<'SCRIPT'
#!/bin/bash
echo "hello"
SCRIPT
chmod +x /app/greet.sh
