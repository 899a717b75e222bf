#ifndef VM_COMMON_MAN_PAGE_H
#define VM_COMMON_MAN_PAGE_H

/*
 * The end of each component's help: its manual page, where `meson install`
 * puts it (VM_MAN_DIR, from the build options) and where a build tree has
 * it. The same plugin runs from the build tree (--plugin-path=build/plugin)
 * and installed, and its help is a constant: it names both places, each for
 * what it is, rather than an installed path that a build tree lacks. No
 * absolute build path: the installed plugin must not name one.
 */
#define VM_MAN_PAGE_HELP(page) \
	"See the " page "(7) manual page.\n" \
	"Manual page: " VM_MAN_DIR "/" page ".7 (once installed;\n" \
	"in a build directory: doc/man/" page ".7, read it with `man -l`)"

#endif /* VM_COMMON_MAN_PAGE_H */
