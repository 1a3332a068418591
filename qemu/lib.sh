# Shell helpers shared by the qemu/*.sh scripts (sourced, not run).

# read_series FILE: the patch names listed in a hooks-patch/series file, one a
# line, without '#' comments and blank lines.  A missing file lists nothing.
read_series() {
	[ -f "$1" ] || return 0
	sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1"
}
