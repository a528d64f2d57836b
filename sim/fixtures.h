/* fixtures.h: the tools, resources and prompts the official MCP conformance suite
   (@modelcontextprotocol/conformance) expects of a server, for mcpsim --conformance-fixtures. */
#ifndef SIM_FIXTURES_H
#define SIM_FIXTURES_H

#include "fw_device.h"

/*
 * Registers the conformance fixtures on dev (after fw_device_init, which forgets them):
 * the tools test_simple_text, test_image_content, test_audio_content, test_embedded_resource,
 * test_multiple_content_types, test_tool_with_logging, test_tool_with_progress,
 * test_error_handling, test_sampling, test_elicitation, test_elicitation_sep1034_defaults and
 * test_elicitation_sep1330_enums; the resources test://static-text, test://static-binary,
 * test://watched-resource and the template test://template/{id}/data; the prompts
 * test_simple_prompt, test_prompt_with_arguments, test_prompt_with_embedded_resource and
 * test_prompt_with_image; (2026-07-28) test_trigger_tool_change and test_trigger_prompt_change,
 * which add a tool or a prompt at run time. Returns FW_OK or the first registration error (a board whose tools
 * leave no room, a name the board already uses).
 */
fw_err_t sim_fixtures_add(fw_device_t *dev);

/* Number of tools sim_fixtures_add registers. */
#define SIM_FIXTURE_TOOLS 27
/* and the tools of the tasks-* scenarios (greet, slow_compute, ...: 2026-07-28 tasks) */
#define SIM_FIXTURE_TASK_TOOLS 7

#endif
