// A Vitest project as an application writes it: one service for the run, from the global setup.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { globalSetup: ['./crypto-service.setup.mjs'], include: ['*.test.mjs'] },
});
