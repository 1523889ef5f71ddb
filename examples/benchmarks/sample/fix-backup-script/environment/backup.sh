#!/bin/bash
# Usage: backup.sh SOURCE_DIR DEST_DIR
# Creates DEST_DIR/<name of SOURCE_DIR>.tar containing SOURCE_DIR's files and prints its path.
SRC=$1
DEST=$2
NAME=$(basename $SRC)
mkdir -p $DEST
cd $SRC
tar -cf $DEST/$NAME.tar *
echo $DEST/$NAME.tar
