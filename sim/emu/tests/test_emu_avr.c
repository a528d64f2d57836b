/* test_emu_avr.c: placeholder until the integration tests land (skipped). */
#include <stdio.h>
int main(void)
{
    puts("test_emu_avr: not written yet");
    return 77;
}
