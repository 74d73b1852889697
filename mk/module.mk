# SPDX-License-Identifier: GPL-2.0
#
# bpfilter.ko (net/bpfilter/), built out of tree for Debian kernels.
#
#   make modules                  build/module/<KVER>/bpfilter.ko (and
#                                 bpfilter_kfunc.ko, its programs' kfuncs) for every
#                                 /usr/src/linux-headers-*-cloud-amd64
#   make modules KDIR=/path       only for that kernel build tree
#   make install [KVER=...]       into /lib/modules/KVER/updates/, then depmod
#                                 (default KVER: the running kernel)
#   make module-checkpatch        checkpatch.pl over the module's sources
#   make module-srcs              their list (scripts/vm/trixie.sh builds from it)
#   make module-clean
#
# Each kernel builds in its own copy of the sources (build/module/<KVER>/src)
# so that two kernels' objects never clash. The helper embedded is
# net/bpfilter/bpfilter_umh from `make helper`, or BPFILTER_UMH_BIN=/path.

MODULE_OUT ?= $(BUILD)/module
MODULE_SRCS := net/bpfilter/Kbuild net/bpfilter/bpfilter_kern.c \
	net/bpfilter/bpfilter_kfunc.c net/bpfilter/kfunc.h \
	net/bpfilter/umh.c net/bpfilter/umh.h net/bpfilter/bpfilter_umh_blob.S \
	include/uapi/linux/bpfilter.h
MODULE_KDIRS := $(or $(KDIR),$(wildcard /usr/src/linux-headers-*-cloud-amd64))

# The helper comes from mk/helper.mk unless the caller names another binary.
ifeq ($(origin BPFILTER_UMH_BIN),undefined)
BPFILTER_UMH_BIN := $(SRCTREE)/net/bpfilter/bpfilter_umh
MODULE_HELPER_DEP := $(or $(HELPER_BIN),helper)
endif

# The kernel `make install` installs for (not KVER's default: vm.mk needs it unset).
MODULE_KVER = $(or $(KVER),$(shell uname -r))

modules: $(MODULE_HELPER_DEP)
	@test -n "$(MODULE_KDIRS)" || { \
		echo "modules: no /usr/src/linux-headers-*-cloud-amd64: run make setup"; exit 1; }
	@test -f "$(BPFILTER_UMH_BIN)" || { \
		echo "modules: no helper at $(BPFILTER_UMH_BIN): run make helper"; exit 1; }
	@# Embed the helper without its debug info; keep the copy's mtime when
	@# nothing changed so that kbuild does not relink for nothing.
	@mkdir -p $(MODULE_OUT)
	@strip --strip-debug -o $(MODULE_OUT)/bpfilter_umh.new $(BPFILTER_UMH_BIN)
	@cmp -s $(MODULE_OUT)/bpfilter_umh.new $(MODULE_OUT)/bpfilter_umh && \
		rm $(MODULE_OUT)/bpfilter_umh.new || \
		mv $(MODULE_OUT)/bpfilter_umh.new $(MODULE_OUT)/bpfilter_umh
	@set -e; for kdir in $(MODULE_KDIRS); do \
		kver=$$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
			$$kdir/include/generated/utsrelease.h); \
		test -n "$$kver" || { echo "modules: no kernel release in $$kdir"; exit 1; }; \
		out=$(MODULE_OUT)/$$kver; \
		for f in $(MODULE_SRCS); do \
			mkdir -p $$out/src/$$(dirname $$f); \
			cmp -s $$f $$out/src/$$f || cp -p $$f $$out/src/$$f; \
		done; \
		echo "  MODULE  $$kver"; \
		$(MAKE) --no-print-directory -C $$kdir M=$$out/src/net/bpfilter \
			BPFILTER_UMH_BIN=$(abspath $(MODULE_OUT))/bpfilter_umh modules; \
		cp $$out/src/net/bpfilter/bpfilter.ko $$out/bpfilter.ko; \
		cp $$out/src/net/bpfilter/bpfilter_kfunc.ko $$out/bpfilter_kfunc.ko; \
	done

install:
	@test -f $(MODULE_OUT)/$(MODULE_KVER)/bpfilter.ko || { \
		echo "install: no $(MODULE_OUT)/$(MODULE_KVER)/bpfilter.ko:" \
			"make modules KDIR=/lib/modules/$(MODULE_KVER)/build first"; exit 1; }
	install -D -m 0644 $(MODULE_OUT)/$(MODULE_KVER)/bpfilter.ko \
		$(DESTDIR)/lib/modules/$(MODULE_KVER)/updates/bpfilter.ko
	install -D -m 0644 $(MODULE_OUT)/$(MODULE_KVER)/bpfilter_kfunc.ko \
		$(DESTDIR)/lib/modules/$(MODULE_KVER)/updates/bpfilter_kfunc.ko
	depmod $(if $(DESTDIR),-b $(DESTDIR)) $(MODULE_KVER)

# The Debian package bpfilter-dkms (debian/: dh with dh-dkms), built from
# the tree as it stands into $(BUILD)/deb/bpfilter-dkms_VERSION_all.deb.
deb:
	rm -rf $(BUILD)/deb
	bash scripts/export-tree.sh $(BUILD)/deb/src
	cd $(BUILD)/deb/src && dpkg-buildpackage -b -us -uc > ../build.log 2>&1 || \
		{ tail -n 30 ../build.log; exit 1; }
	@ls $(BUILD)/deb/*.deb

.PHONY: deb

# Debian's headers packages lack checkpatch.pl: take it from linux-source.
CHECKPATCH ?= $(firstword $(wildcard /usr/src/linux-headers-*-common/scripts/checkpatch.pl \
	/usr/lib/linux-kbuild-*/scripts/checkpatch.pl) $(BUILD)/checkpatch/scripts/checkpatch.pl)

$(BUILD)/checkpatch/scripts/checkpatch.pl:
	@mkdir -p $(BUILD)/checkpatch
	tar -xJf $$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n1) \
		-C $(BUILD)/checkpatch --strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'

module-checkpatch: $(CHECKPATCH)
	perl $(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES \
		-f net/bpfilter/bpfilter_kern.c net/bpfilter/bpfilter_kfunc.c net/bpfilter/kfunc.h \
		net/bpfilter/umh.c net/bpfilter/umh.h

module-clean:
	rm -rf $(MODULE_OUT)

module-srcs:
	@echo $(MODULE_SRCS)

.PHONY: modules install module-checkpatch module-clean module-srcs
