export async function stopAllEngines(): Promise<void> {}
