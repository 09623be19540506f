# SPDX-License-Identifier: GPL-2.0-only
# kernels: the matrix (kernels/matrix.toml), fetched or built into the cache
# ($JR2_KERNEL_CACHE, default /var/cache/jr2-kernels; kernels/README.md).
#   make kernels [KERNELS="a b"]       fetch the Debian entries (pinned, checked), take the prebuilt images found
#   make kernel-build KERNEL=<name>    build a source entry (long: 20-60 min)
#   make kernels-list                  each entry, its ABI, verdict, the way it comes (cached, prebuilt, tarball)

KERNELS_DEBS := apt dpkg tar debian-archive-keyring
KERNEL_BUILD_DEBS := gcc make bc bison flex libelf-dev libssl-dev dwarves xz-utils

.PHONY: kernels kernel-build kernels-list

kernels:
	@scripts/need-debs $(KERNELS_DEBS)
	$(PYTHON) kernels/fetch $(KERNELS)

kernel-build:
	@test -n '$(KERNEL)' || { echo 'kernel-build: name the entry: make kernel-build KERNEL=6.1-src' >&2; exit 2; }
	@scripts/need-debs $(KERNEL_BUILD_DEBS)
	$(PYTHON) kernels/fetch --build '$(KERNEL)'

kernels-list:
	@$(PYTHON) kernels/fetch --list
