/* startup_cortex_m3.c: the template port's vector table and reset handler (with cortex_m3.ld). */
#include <stdint.h>

/*
 * The linker script places vector_table at address 0 (.isr_vector): the initial main stack
 * pointer (the end of RAM), the 15 system exceptions of the ARMv7-M core, then the chip's
 * interrupts: the template lists the LM3S6965's up to UART0 (a real port lists all of its chip's).
 * Every handler is a weak alias of Default_Handler, so the port defines only those it needs
 * (main.c: SysTick_Handler, UART0_Handler).
 */

/* Symbols of cortex_m3.ld: the .data image in flash, .data and .bss in RAM, the stack's top. */
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

typedef void (*vector_fn)(void);

/* The table's layout as the core reads it: a stack address, the system exceptions' handlers,
   then the chip's interrupts (here the LM3S6965's first six, up to UART0's receive interrupt). */
typedef struct vector_table {
    uint32_t *initial_sp;
    vector_fn handlers[15];
    vector_fn irq[6];
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
            GPIOA_Handler,
            GPIOB_Handler,
            GPIOC_Handler,
            GPIOD_Handler,
            GPIOE_Handler,
            UART0_Handler,
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
