// SPDX-License-Identifier: GPL-2.0-only
/*
 * jr2-vm-exit: ends the vmtest guest.  The guest's /init runs it last, and
 * vmtest/bench's bare boot has it as /init alone (QEMU start to QEMU exit:
 * the kernel's own cost, the baseline a boot plus the suite is compared
 * with).  It writes 42 to isa-debug-exit at 0xf4, so that QEMU exits with
 * (42 << 1) | 1 = 85, the runner's sign of a guest that reached its end.
 * The write is an outb after ioperm(), not a write to /dev/port: a kernel
 * built without CONFIG_DEVPORT (Debian's cloud flavour) has no /dev/port,
 * while ioperm() needs only CONFIG_X86_IOPL_IOPERM and CAP_SYS_RAWIO.
 * Without the port, it powers the guest off (QEMU then exits with 0).
 */
#include <stdio.h>
#include <sys/io.h>
#include <sys/reboot.h>
#include <unistd.h>

int main(void)
{
	sync();
	if (ioperm(0xf4, 1, 1) == 0)
		outb(42, 0xf4);
	else
		perror("jr2-vm-exit: ioperm(0xf4): the guest powers off "
		       "instead, QEMU exits 0");
	reboot(RB_POWER_OFF);
	perror("jr2-vm-exit: reboot(RB_POWER_OFF)");
	return 1;
}
