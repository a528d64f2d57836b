/* listen_off.c: the subscriptions/listen part of the public API in a build without listener
   slots (no MCP, or FW_MAX_LISTENERS 0): no request opens a stream, so there is none to take,
   drain or close. */
#include "fw_internal.h"

#if !FW_WITH_LISTEN

int fw_device_listen_take(fw_device_t *dev, const fw_session_t *owner)
{
    (void)dev;
    (void)owner;
    return -1;
}

void fw_device_listen_release(fw_device_t *dev, const fw_session_t *owner)
{
    (void)dev;
    (void)owner;
}

bool fw_device_listen_open(const fw_device_t *dev, int slot)
{
    (void)dev;
    (void)slot;
    return false;
}

size_t fw_device_listen_drain(fw_device_t *dev, int slot, fw_msg_sink_t out)
{
    (void)dev;
    (void)slot;
    (void)out;
    return 0;
}

void fw_device_listen_close(fw_device_t *dev, int slot)
{
    (void)dev;
    (void)slot;
}

#endif
