// The Data source screen (README "Data sources"): what answers now and what the next start opens,
// Test connection, Use (bundled dataset or a ClickHouse server; dataset files switch through
// datasets/switch) and forgetting the stored password. None of these ever answers the password.
import type { Core } from '../createCore';
import type { HandlerRegistry } from './registry';

export function registerDataSourceHandlers(registry: HandlerRegistry, core: Core): void {
  registry.register('datasource/get', () => core.dataSources.describe());
  registry.register('datasource/check', (input) => core.dataSources.check(input));
  registry.register('datasource/use', (input) => core.dataSources.use(input));
  registry.register('datasource/forget-password', () => core.dataSources.forgetPassword());
}
