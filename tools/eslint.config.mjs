// ESLint rules for the browser scripts shipped as package data (the replay viewer and the live
// page: arena/records/assets/*.js, arena/web/assets/*.js), run by tools/eslint-check. Each
// script is inlined into its page as a classic <script> (no modules, no build step), so they
// are linted as browser scripts in strict mode, with eslint's recommended rules plus a few
// that catch what a page without tests for every path would hide.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["arena/records/assets/*.js", "arena/web/assets/*.js"],
    ...js.configs.recommended,
  },
  {
    files: ["arena/records/assets/*.js", "arena/web/assets/*.js"],
    languageOptions: {
      ecmaVersion: 2020,
      sourceType: "script",
      globals: { ...globals.browser },
    },
    rules: {
      strict: ["error", "function"],
      eqeqeq: ["error", "always"],
      "no-implicit-globals": "error",
      "no-unused-vars": ["error", { args: "none" }],
      "no-var": "off",
      "no-shadow": "error",
      "no-eval": "error",
      "no-implied-eval": "error",
      "no-new-func": "error",
      "no-script-url": "error",
      curly: ["error", "multi-line"],
    },
  },
];
