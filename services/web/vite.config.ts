// The UI is built to dist/ (served by the API at /). Hashed file names under assets/ are cached
// for a year by the server; index.html is never cached.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // No inline script or data: module: the server's Content-Security-Policy allows scripts from 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: "es2022",
    chunkSizeWarningLimit: 400,
  },
  server: { proxy: { "/api": "http://localhost:8080" } },
});
