import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

// The app loads ui/dist through Tauri's asset protocol; there is no dev server.
export default defineConfig({
  plugins: [svelte()],
  base: './',
  clearScreen: false,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Keep the whole UI in files the strict CSP allows ('self' only).
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1500,
  },
  test: {
    include: ['src/**/*.test.ts'],
    // The contrast test reads the design tokens from the stylesheet itself.
    css: { include: [/app\.css/] },
  },
});
