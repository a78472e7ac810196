# The PrometheusRules test: `promtool check rules` on RULES_DIR/rowbridge-alerts.yml, then
# `promtool test rules` on its tests (rowbridge-alerts.test.yml). Run with
# `cmake -DRULES_DIR=<dir> -P CheckPrometheusRules.cmake`; fails (never skips) without promtool.
find_program(PROMTOOL promtool)
if(NOT PROMTOOL)
  message(FATAL_ERROR "promtool not found: install Debian's prometheus package "
                      "(bash scripts/install-deps.sh does)")
endif()
foreach(step "check;rules;rowbridge-alerts.yml" "test;rules;rowbridge-alerts.test.yml")
  execute_process(COMMAND ${PROMTOOL} ${step} WORKING_DIRECTORY ${RULES_DIR}
                  RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    list(JOIN step " " words)
    message(FATAL_ERROR "promtool ${words} failed (exit ${result}) in ${RULES_DIR}")
  endif()
endforeach()
