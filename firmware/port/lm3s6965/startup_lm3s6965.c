/* startup_lm3s6965.c: the LM3S6965's vector table and reset handler (with lm3s6965.ld). */
#include <stdint.h>

/*
 * The linker script places vector_table at address 0 (.isr_vector): the initial main stack
 * pointer (the end of RAM), the 15 system exceptions of the ARMv7-M core, then the LM3S6965's 44
 * interrupts in the data sheet's order (its "Interrupts" table; some are reserved on this part
 * and never fire). Every handler is a weak alias of Default_Handler, so the port defines only
 * those it uses (main.c: SysTick_Handler, UART0_Handler).
 */

/* Symbols of lm3s6965.ld: the .data image in flash, .data and .bss in RAM, the stack's top. */
extern uint32_t __data_load__[], __data_start__[], __data_end__[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t __stack_top__[];

int main(void);

void Reset_Handler(void);
void Default_Handler(void);
void NMI_Handler(void) __attribute__((weak, alias("Default_Handler")));
void HardFault_Handler(void) __attribute__((weak, alias("Default_Handler")));
void MemManage_Handler(void) __attribute__((weak, alias("Default_Handler")));
void BusFault_Handler(void) __attribute__((weak, alias("Default_Handler")));
void UsageFault_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SVC_Handler(void) __attribute__((weak, alias("Default_Handler")));
void DebugMon_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PendSV_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SysTick_Handler(void) __attribute__((weak, alias("Default_Handler")));
void GPIOA_Handler(void) __attribute__((weak, alias("Default_Handler")));
void GPIOB_Handler(void) __attribute__((weak, alias("Default_Handler")));
void GPIOC_Handler(void) __attribute__((weak, alias("Default_Handler")));
void GPIOD_Handler(void) __attribute__((weak, alias("Default_Handler")));
void GPIOE_Handler(void) __attribute__((weak, alias("Default_Handler")));
void UART0_Handler(void) __attribute__((weak, alias("Default_Handler")));
void UART1_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SSI0_Handler(void) __attribute__((weak, alias("Default_Handler")));
void I2C0_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PWMFault_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PWMGen0_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PWMGen1_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PWMGen2_Handler(void) __attribute__((weak, alias("Default_Handler")));
void QEI0_Handler(void) __attribute__((weak, alias("Default_Handler")));
void ADCSeq0_Handler(void) __attribute__((weak, alias("Default_Handler")));
void ADCSeq1_Handler(void) __attribute__((weak, alias("Default_Handler")));
void ADCSeq2_Handler(void) __attribute__((weak, alias("Default_Handler")));
void ADCSeq3_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Watchdog_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Timer0A_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Timer0B_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Timer1A_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Timer1B_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Timer2A_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Timer2B_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Comp0_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Comp1_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Comp2_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SysCtl_Handler(void) __attribute__((weak, alias("Default_Handler")));
void FlashCtl_Handler(void) __attribute__((weak, alias("Default_Handler")));
void GPIOF_Handler(void) __attribute__((weak, alias("Default_Handler")));
void GPIOG_Handler(void) __attribute__((weak, alias("Default_Handler")));
void GPIOH_Handler(void) __attribute__((weak, alias("Default_Handler")));
void UART2_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SSI1_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Timer3A_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Timer3B_Handler(void) __attribute__((weak, alias("Default_Handler")));
void I2C1_Handler(void) __attribute__((weak, alias("Default_Handler")));
void QEI1_Handler(void) __attribute__((weak, alias("Default_Handler")));
void CAN0_Handler(void) __attribute__((weak, alias("Default_Handler")));
void CAN1_Handler(void) __attribute__((weak, alias("Default_Handler")));
void CAN2_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Ethernet_Handler(void) __attribute__((weak, alias("Default_Handler")));
void Hibernate_Handler(void) __attribute__((weak, alias("Default_Handler")));

typedef void (*vector_fn)(void);

typedef struct vector_table {
    uint32_t *initial_sp;
    vector_fn handlers[15];
    vector_fn irq[44];
} vector_table_t;

__attribute__((section(".isr_vector"), used)) const vector_table_t vector_table = {
    .initial_sp = __stack_top__,
    .handlers =
        {
            Reset_Handler,
            NMI_Handler,
            HardFault_Handler,
            MemManage_Handler,
            BusFault_Handler,
            UsageFault_Handler,
            0,
            0,
            0,
            0, /* reserved */
            SVC_Handler,
            DebugMon_Handler,
            0, /* reserved */
            PendSV_Handler,
            SysTick_Handler,
        },
    .irq =
        {
            GPIOA_Handler, /* 0 */
            GPIOB_Handler, /* 1 */
            GPIOC_Handler, /* 2 */
            GPIOD_Handler, /* 3 */
            GPIOE_Handler, /* 4 */
            UART0_Handler, /* 5 */
            UART1_Handler, /* 6 */
            SSI0_Handler, /* 7 */
            I2C0_Handler, /* 8 */
            PWMFault_Handler, /* 9 */
            PWMGen0_Handler, /* 10 */
            PWMGen1_Handler, /* 11 */
            PWMGen2_Handler, /* 12 */
            QEI0_Handler, /* 13 */
            ADCSeq0_Handler, /* 14 */
            ADCSeq1_Handler, /* 15 */
            ADCSeq2_Handler, /* 16 */
            ADCSeq3_Handler, /* 17 */
            Watchdog_Handler, /* 18 */
            Timer0A_Handler, /* 19 */
            Timer0B_Handler, /* 20 */
            Timer1A_Handler, /* 21 */
            Timer1B_Handler, /* 22 */
            Timer2A_Handler, /* 23 */
            Timer2B_Handler, /* 24 */
            Comp0_Handler, /* 25 */
            Comp1_Handler, /* 26 */
            Comp2_Handler, /* 27 */
            SysCtl_Handler, /* 28 */
            FlashCtl_Handler, /* 29 */
            GPIOF_Handler, /* 30 */
            GPIOG_Handler, /* 31 */
            GPIOH_Handler, /* 32 */
            UART2_Handler, /* 33 */
            SSI1_Handler, /* 34 */
            Timer3A_Handler, /* 35 */
            Timer3B_Handler, /* 36 */
            I2C1_Handler, /* 37 */
            QEI1_Handler, /* 38 */
            CAN0_Handler, /* 39 */
            CAN1_Handler, /* 40 */
            CAN2_Handler, /* 41 */
            Ethernet_Handler, /* 42 */
            Hibernate_Handler, /* 43 */
        },
};

/* Copies .data from flash, clears .bss, runs main. Word loops: the linker script aligns both
   sections to 4 bytes, and no C library is needed before main. */
void Reset_Handler(void)
{
    uint32_t *src = __data_load__;
    for (uint32_t *dst = __data_start__; dst < __data_end__;) *dst++ = *src++;
    for (uint32_t *dst = __bss_start__; dst < __bss_end__;) *dst++ = 0;
    (void)main();
    for (;;) {
    }
}

/* An unexpected exception or interrupt: stop here, where a debugger finds it. */
void Default_Handler(void)
{
    for (;;) {
    }
}
