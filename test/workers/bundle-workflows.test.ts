import { bundleWorkflowsApart } from '../../workers/create-worker';

describe('bundling the workflows in a child process', () => {
  it('gives the bundle of the workflows file', async () => {
    const bundle = await bundleWorkflowsApart();
    expect(bundle.code).toContain('approvalWorkflow');
    expect(bundle.code).toContain('routeTaskWorkflow');
  }, 120_000);

  it('fails with the child’s exit when the workflows file cannot be bundled', async () => {
    await expect(bundleWorkflowsApart('/nonexistent/workflows.ts')).rejects.toThrow(
      'bundling the workflows failed (exit code 1)',
    );
  }, 60_000);
});
