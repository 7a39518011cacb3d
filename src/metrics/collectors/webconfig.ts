/** avahealth_web_config_last_reload_successful: 0 while a changed --web.config.file is refused (the previous one stays in force). */
import { Gauge, type Registry } from 'prom-client';

export function webConfigReloadGauge(registry: Registry): Gauge {
  const gauge = new Gauge({
    name: 'avahealth_web_config_last_reload_successful',
    help: 'Whether the last (re)load of --web.config.file was applied (0: refused or broken; the previous one is kept, the log says why).',
    registers: [registry],
  });
  gauge.set(1);
  return gauge;
}
