/* lm3s6965.h: the LM3S6965 registers this port touches (Stellaris LM3S6965 data sheet, DS-LM3S6965,
   and the ARMv7-M architecture reference for the core's System Control Space). */
#ifndef LM3S6965_H
#define LM3S6965_H

#include <stdint.h>

#define LM3S_REG(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* System control (base 0x400FE000). QEMU's model aborts the emulator on a register it does not
   know, so this port reads and writes only the ones below, which it models. */
#define SYSCTL_BASE 0x400FE000u
#define SYSCTL_DC0 LM3S_REG(SYSCTL_BASE + 0x008)   /* SRAMSZ 31:16 (x256 B), FLASHSZ 15:0 (x2 KB) */
#define SYSCTL_RIS LM3S_REG(SYSCTL_BASE + 0x050)   /* raw interrupt status: PLLLRIS bit 6 */
#define SYSCTL_MISC LM3S_REG(SYSCTL_BASE + 0x058)  /* write 1 to clear */
#define SYSCTL_RCC LM3S_REG(SYSCTL_BASE + 0x060)
#define SYSCTL_RCGC1 LM3S_REG(SYSCTL_BASE + 0x104) /* run-mode clock gating: UART0 bit 0 */
#define SYSCTL_RCGC2 LM3S_REG(SYSCTL_BASE + 0x108) /* run-mode clock gating: GPIO A..G bits 0..6 */
#define SYSCTL_USER0 LM3S_REG(SYSCTL_BASE + 0x1E0) /* MAC bytes 0..2 (factory-programmed on the EVB) */
#define SYSCTL_USER1 LM3S_REG(SYSCTL_BASE + 0x1E4) /* MAC bytes 3..5 */

#define SYSCTL_RIS_PLLLRIS (1u << 6)
#define SYSCTL_RCGC1_UART0 (1u << 0)

/* RCC fields */
#define RCC_MOSCDIS (1u << 0)
#define RCC_XTAL_MASK (0xFu << 6)
#define RCC_XTAL_8MHZ (0xEu << 6)
#define RCC_OSCSRC_MASK (0x3u << 4)
#define RCC_OSCSRC_MAIN (0x0u << 4)
#define RCC_BYPASS (1u << 11)
#define RCC_PWRDN (1u << 13)
#define RCC_OEN (1u << 12)
#define RCC_USESYSDIV (1u << 22)
#define RCC_SYSDIV_MASK (0xFu << 23)
#define RCC_SYSDIV(div) ((uint32_t)((div) - 1u) << 23) /* with the PLL: 200 MHz / div */

/* GPIO ports (Luminary PL061). Bases of ports A..G. */
#define GPIO_PORTA_BASE 0x40004000u
#define GPIO_PORTB_BASE 0x40005000u
#define GPIO_PORTC_BASE 0x40006000u
#define GPIO_PORTD_BASE 0x40007000u
#define GPIO_PORTE_BASE 0x40024000u
#define GPIO_PORTF_BASE 0x40025000u
#define GPIO_PORTG_BASE 0x40026000u
/* GPIODATA is a window of 256 words: address bits 9:2 mask which bits a read sees and a write
   changes, so one pin is read or written without a read-modify-write of the port. */
#define GPIO_DATA(base, mask) LM3S_REG((base) + ((uint32_t)(mask) << 2))
#define GPIO_DIR(base) LM3S_REG((base) + 0x400)
#define GPIO_AFSEL(base) LM3S_REG((base) + 0x420)
#define GPIO_PUR(base) LM3S_REG((base) + 0x510)
#define GPIO_PDR(base) LM3S_REG((base) + 0x514)
#define GPIO_DEN(base) LM3S_REG((base) + 0x51C)

/* UART0 (Luminary PL011, base 0x4000C000, interrupt 5). */
#define UART0_BASE 0x4000C000u
#define UART0_DR LM3S_REG(UART0_BASE + 0x000)
#define UART0_RSR LM3S_REG(UART0_BASE + 0x004) /* read: errors; write: clear them */
#define UART0_FR LM3S_REG(UART0_BASE + 0x018)
#define UART0_IBRD LM3S_REG(UART0_BASE + 0x024)
#define UART0_FBRD LM3S_REG(UART0_BASE + 0x028)
#define UART0_LCRH LM3S_REG(UART0_BASE + 0x02C)
#define UART0_CTL LM3S_REG(UART0_BASE + 0x030)
#define UART0_IFLS LM3S_REG(UART0_BASE + 0x034)
#define UART0_IM LM3S_REG(UART0_BASE + 0x038)
#define UART0_ICR LM3S_REG(UART0_BASE + 0x044)
#define UART0_IRQ 5u

#define UART_FR_BUSY (1u << 3)
#define UART_FR_RXFE (1u << 4)
#define UART_FR_TXFF (1u << 5)
#define UART_DR_OE (1u << 11) /* overrun: a byte was lost because the FIFO was full */
#define UART_LCRH_FEN (1u << 4)
#define UART_LCRH_WLEN_8 (3u << 5)
#define UART_CTL_UARTEN (1u << 0)
#define UART_CTL_TXE (1u << 8)
#define UART_CTL_RXE (1u << 9)
#define UART_IFLS_RX4_8 (2u << 3) /* receive interrupt at 8 of 16 bytes */
#define UART_INT_RX (1u << 4)
#define UART_INT_RT (1u << 6)
#define UART_INT_OE (1u << 10)

/* Cortex-M3 System Control Space. */
#define SYST_CSR LM3S_REG(0xE000E010u)
#define SYST_RVR LM3S_REG(0xE000E014u)
#define SYST_CVR LM3S_REG(0xE000E018u)
#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE (1u << 2) /* the processor clock (0: the chip's reference clock) */
#define NVIC_ISER0 LM3S_REG(0xE000E100u)
#define SCB_AIRCR LM3S_REG(0xE000ED0Cu)
#define SCB_AIRCR_SYSRESETREQ (0x05FAu << 16 | 1u << 2)

/* The system clock this port runs at: the PLL (400 MHz VCO, 200 MHz after its /2) divided by 4,
   from the EVB's 8 MHz crystal: 50 MHz, the part's maximum. */
#define LM3S_SYSCLK_HZ 50000000u

#endif
