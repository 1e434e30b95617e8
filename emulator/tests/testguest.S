/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A bare-metal x86 guest for the host tests and the benchmark of the hca
 * plugin.  It is the whole firmware of QEMU's pc machine (-bios, 64 KiB):
 * it starts in real mode at the reset vector, makes exactly the data
 * accesses written here (no stack, no data read from ROM, interrupts off),
 * and stops QEMU through isa-debug-exit at port 0xf4, which makes QEMU exit
 * with status (0x10 << 1) | 1 = 33.
 *
 * Pages (4 KiB, pfn = address >> 12):
 *	A = 0x10000 (pfn 16), B = 0x20000 (pfn 32), C = 0x30000 (pfn 48)
 *
 * One mode per build (-DMODE_name):
 *	pattern	1000 loads from A, 10 stores to B, 1 load from C, exit
 *	decay	pattern, then SPIN_INSNS instructions without memory access,
 *		then 7 loads from A, exit
 *	bar	maps the table (ivshmem-plain at 00:05.0) at 0xa0000 through
 *		PCI configuration cycles, does the pattern, loads the table's
 *		magic 1000 times through the BAR, asks for a ground-truth dump
 *		(truth_req = 1), spins SPIN_INSNS instructions, exit
 *	loop	loads from A forever (for tests of the control area)
 *	idle	pattern, then halts with interrupts off: idle until QEMU is
 *		stopped from outside (for decays in guest time)
 *	sweep	pattern, then rep stosb over all of D = 0x40000 (pfn 64) and
 *		rep movsb from D to E = 0x50000 (pfn 80), 4096 bytes each:
 *		with lines=on, 64 + 64 accesses count for D and 64 for E
 *	smp	two vCPUs (-smp 2, multi-threaded TCG) at once: the boot
 *		vCPU wakes the other (INIT, SIPI through the local APIC,
 *		reached in unreal mode), then both load A and F = 0x14000
 *		(pfn 20) in turn SMP_LOOPS times each; A and F share a
 *		pending slot of the plugin (pfn % 4), so every access is an
 *		update of the shared table, concurrent with the other vCPU's.
 *		The second vCPU then stores 1 to G = 0x70000 (pfn 112); the
 *		first waits for it (loads of G, as many as it takes), exit.
 *		Counts: A and F 2 * SMP_LOOPS each, G unknown
 *	bench	BENCH_PASSES passes over 0x10000-0x7ffff (448 KiB): per
 *		64-byte line, load-add-store at two offsets (8 instructions,
 *		4 accesses), then exit
 */
#ifndef SPIN_INSNS
#define SPIN_INSNS	100000
#endif
#ifndef SMP_LOOPS
#define SMP_LOOPS	100000
#endif
#ifndef BENCH_PASSES
#define BENCH_PASSES	20000
#endif

	.code16
	.text
start:
	cli
	xor	%bx, %bx
	mov	$0x1000, %ax
	mov	%ax, %ds		/* DS:0 = A */
	mov	$0x2000, %ax
	mov	%ax, %es		/* ES:0 = B */
	mov	$0x3000, %ax
	mov	%ax, %fs		/* FS:0 = C */

#ifdef MODE_bar
	/* BAR2 of 00:05.0 (64-bit) = 0xa0000, then memory decoding on. */
	mov	$0xcf8, %dx
	mov	$0x80002818, %eax
	outl	%eax, %dx
	mov	$0xcfc, %dx
	mov	$0xa0000, %eax
	outl	%eax, %dx
	mov	$0xcf8, %dx
	mov	$0x8000281c, %eax
	outl	%eax, %dx
	mov	$0xcfc, %dx
	xor	%eax, %eax
	outl	%eax, %dx
	mov	$0xcf8, %dx
	mov	$0x80002804, %eax
	outl	%eax, %dx
	mov	$0xcfc, %dx
	mov	$0x2, %eax
	outl	%eax, %dx
	mov	$0xa000, %ax
	mov	%ax, %gs		/* GS:0 = the table */
#endif

#if defined(MODE_pattern) || defined(MODE_decay) || defined(MODE_bar) || \
	defined(MODE_sweep) || defined(MODE_idle)
	mov	$1000, %cx
1:	mov	(%bx), %al
	dec	%cx
	jnz	1b
	mov	$10, %cx
2:	mov	%al, %es:(%bx)
	dec	%cx
	jnz	2b
	mov	%fs:(%bx), %al
#endif

#ifdef MODE_idle
5:	hlt
	jmp	5b
#endif

#ifdef MODE_decay
	mov	$(SPIN_INSNS / 2), %ecx
3:	dec	%ecx
	jnz	3b
	mov	$7, %cx
4:	mov	(%bx), %al
	dec	%cx
	jnz	4b
#endif

#ifdef MODE_bar
	mov	$1000, %cx
9:	mov	%gs:(%bx), %al
	dec	%cx
	jnz	9b
	movl	$1, %gs:0x104		/* truth_req */
	mov	$(SPIN_INSNS / 2), %ecx
10:	dec	%ecx
	jnz	10b
#endif

#ifdef MODE_sweep
	cld
	mov	$0x4000, %ax
	mov	%ax, %es
	xor	%di, %di
	xor	%al, %al
	mov	$4096, %cx
	rep stosb			/* D: 4096 byte stores */
	mov	$0x4000, %ax
	mov	%ax, %ds
	mov	$0x5000, %ax
	mov	%ax, %es
	xor	%si, %si
	xor	%di, %di
	mov	$4096, %cx
	rep movsb			/* D -> E: 4096 loads, 4096 stores */
#endif

#ifdef MODE_smp
/* SMP_LOOPS loads of A (DS:0) and F (DS:0x4000) in turn; needs BX = 0 */
.macro smp_loads
	mov	$SMP_LOOPS, %ecx
13:	mov	(%bx), %al
	mov	0x4000(%bx), %al
	dec	%ecx
	jnz	13b
.endm

	/* unreal mode: GS with base 0 and a 4 GiB limit, for the APIC */
	lgdtl	%cs:gdtr
	mov	%cr0, %eax
	or	$1, %al
	mov	%eax, %cr0
	mov	$8, %dx
	mov	%dx, %gs
	and	$0xfe, %al
	mov	%eax, %cr0
	xor	%dx, %dx
	mov	%dx, %gs
	mov	$0xfee00300, %esi	/* the ICR, low word */
	movl	$0x000c4500, %gs:(%esi)	/* INIT, all but self */
	mov	$10000, %ecx
11:	dec	%ecx
	jnz	11b
	movl	$0x000c46f1, %gs:(%esi)	/* SIPI: start at 0xf100:0 */
	smp_loads
	mov	$0x7000, %ax
	mov	%ax, %es
12:	cmpb	$1, %es:(%bx)		/* G: the other vCPU is done */
	jne	12b
	jmp	exit
#endif

#ifdef MODE_loop
5:	mov	(%bx), %al
	jmp	5b
#endif

#ifdef MODE_bench
	xor	%dx, %dx
	mov	$BENCH_PASSES, %ecx
6:	mov	$0x1000, %ax
7:	mov	%ax, %ds
	xor	%si, %si
8:	mov	(%si), %di
	add	%di, %dx
	mov	%dx, (%si)
	mov	32(%si), %di
	add	%di, %dx
	mov	%dx, 32(%si)
	add	$64, %si
	jnz	8b
	add	$0x1000, %ax
	cmp	$0x8000, %ax
	jne	7b
	dec	%ecx
	jnz	6b
#endif

exit:
	mov	$0x10, %al
	out	%al, $0xf4
	hlt
	jmp	exit

#ifdef MODE_smp
	.p2align 3
gdt:
	.quad	0
	.quad	0x00cf92000000ffff	/* flat 4 GiB data, base 0 */
gdtr:
	.word	15
	.long	0xf0000 + gdt

	/* the second vCPU, started by the SIPI at 0xf1000 */
	.org	0x1000
	cli
	xor	%bx, %bx
	mov	$0x1000, %ax
	mov	%ax, %ds
	smp_loads
	mov	$0x7000, %ax
	mov	%ax, %es
	movb	$1, %es:(%bx)
14:	hlt
	jmp	14b
#endif

	/* The reset vector, at 0xffff0 (CS base 0xffff0000, IP 0xfff0). */
	.org	0xfff0
	jmp	start
	.org	0x10000
