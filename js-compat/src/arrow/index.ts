/** Placeholder replaced below. */
import type { Registry } from "../registry.js";
export function installArrow(_registry: Registry): void {}
