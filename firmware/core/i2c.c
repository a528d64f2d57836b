/* i2c.c: I2C transfers for tool calls, and the wording of their failures (driver API). */
#include "fw_driver.h"
#include "fw_internal.h"

#if FW_WITH_I2C

fw_err_t fw_i2c_transfer(const fw_device_t *dev, uint8_t bus, uint8_t addr, const uint8_t *tx,
                         size_t tx_len, uint8_t *rx, size_t rx_len)
{
    return dev->hal->i2c_transfer
               ? dev->hal->i2c_transfer(dev->hal_ctx, bus, addr, tx, tx_len, rx, rx_len)
               : FW_ERR_UNSUPPORTED;
}

fw_err_t fw_i2c_call_error(fw_call_t *call, fw_err_t err, const char *what, uint8_t bus,
                           uint8_t addr)
{
    unsigned a = addr, b = bus;
    switch (err) {
    case FW_ERR_I2C_NACK:
        return fw_call_errorf(call, err, "no acknowledge from %s 0x%x on bus %u", what, a, b);
    case FW_ERR_I2C_BUS:
        return fw_call_errorf(call, err,
                              "i2c bus %u is stuck or lost arbitration while addressing %s 0x%x", b,
                              what, a);
    case FW_ERR_I2C_TIMEOUT:
        return fw_call_errorf(call, err, "i2c transfer to %s 0x%x on bus %u timed out", what, a, b);
    default:
        return fw_call_errorf(call, err, "i2c transfer to %s 0x%x on bus %u failed: %s", what, a, b,
                              fw_err_str(err));
    }
}

fw_err_t fw_i2c_call_xfer(fw_call_t *call, const char *what, uint8_t bus, uint8_t addr,
                          const uint8_t *tx, size_t tx_len, uint8_t *rx, size_t rx_len)
{
    fw_err_t err = fw_i2c_transfer(call->dev, bus, addr, tx, tx_len, rx, rx_len);
    return err == FW_OK ? FW_OK : fw_i2c_call_error(call, err, what, bus, addr);
}

#endif
