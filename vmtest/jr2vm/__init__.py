# SPDX-License-Identifier: GPL-2.0-only
"""vmtest: boot kernels of the matrix under QEMU, run the suite inside, collect."""
