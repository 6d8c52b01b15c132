import { defineUpdate } from '@temporalio/workflow';

/** The workflow's type name and signature, so that the benchmark starts it without loading workflow code. */
export const BENCH_FLOOR_WORKFLOW = 'benchFloorWorkflow';
export type BenchFloorWorkflow = (input: { answerWithinMs: number }) => Promise<boolean>;

export const floorUpdate = defineUpdate<string>('floor');
