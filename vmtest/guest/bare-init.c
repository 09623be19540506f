// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-bare-init: the /init of vmtest/bench's bare boot.  It does nothing but
 * end the guest, so that its boot (QEMU start to QEMU exit) is the kernel's
 * own cost: the baseline a boot plus the suite is compared with.  It ends
 * QEMU the way the real init does, through isa-debug-exit at 0xf4 (exit
 * status 85); without the port, it powers the guest off.
 */
#include <stdio.h>
#include <sys/io.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	if (ioperm(0xf4, 1, 1) == 0)
		outb(42, 0xf4);
	reboot(RB_POWER_OFF);
	perror("jr2-bare-init: reboot(RB_POWER_OFF)");
	return 1;
}
