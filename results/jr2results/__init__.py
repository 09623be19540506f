# SPDX-License-Identifier: GPL-2.0-only
"""Reading and writing jr2's test results (TAP in, JUnit/KCIDB/report out)."""
