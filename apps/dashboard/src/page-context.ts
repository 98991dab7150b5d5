import type { Scope } from './project-scope.js';

export interface PageContext {
  /** Where the page renders (the shell's <main>). */
  main: HTMLElement;
  /** The chosen project; pages that need one are only routed when it is set. */
  scope: Scope;
  /** Path parameters (`:id`). */
  params: Record<string, string>;
  query: URLSearchParams;
  navigate(path: string): void;
  /** Re-reads the projects into the picker (after one was registered). */
  refreshProjects(): Promise<void>;
  /** Forgets the token and shows the login page with `message` (after the account was deleted). */
  signOut(message: string): void;
}

export type Page = (ctx: PageContext) => Promise<void>;
