import type { VoteDirection } from '@nestegg/contract';
import { member, type Transaction } from '@nestegg/db';
import { asc, inArray } from 'drizzle-orm';
import { DailyCaps, PointReason, type PointsService } from '../../members/points/index.js';

/** Reasons of the give-backs when a vote goes or switches (the spec's rules have no name for them). */
export const VotePointReason = {
  /** The author loses what an up vote that goes gave them. */
  UP_VOTE_REVOKED: 'UP_VOTE_REVOKED',
  /** The author gets back what a down vote that goes took. */
  DOWN_VOTE_REVOKED: 'DOWN_VOTE_REVOKED',
} as const;

/** A stored vote: its direction and what it gave (or took from) the author. */
export interface Ballot {
  direction: VoteDirection;
  authorPoints: number;
}

export interface VoteSettlement {
  voterId: number;
  authorId: number;
  previous: Ballot | undefined;
  next: VoteDirection | null;
}

/**
 * The points of a vote change (spec Limits): first the previous vote is undone (an up vote's removal
 * costs the voter 1; the author gives back exactly what that vote gave or took), then the new vote is
 * applied (up: voter +1 capped at 10 a day, author +5 capped at 50 a day; down: author −1). A switch is
 * both. Returns the points the new vote gave the author, stored with it so its removal can undo them:
 * toggling a vote on and off is neutral for the author and never a gain for the voter.
 */
export async function settleVotePoints(points: PointsService, tx: Transaction, vote: VoteSettlement): Promise<number> {
  await lockInIdOrder(tx, [vote.voterId, vote.authorId]);
  if (vote.previous) await undo(points, tx, vote, vote.previous);
  return vote.next ? cast(points, tx, vote, vote.next) : 0;
}

/**
 * Both member rows, in id order, before any points change: two members voting on each other's content at
 * once would otherwise lock them in opposite orders and deadlock.
 */
async function lockInIdOrder(tx: Transaction, memberIds: number[]): Promise<void> {
  await tx
    .select({ id: member.id })
    .from(member)
    .where(inArray(member.id, memberIds))
    .orderBy(asc(member.id))
    .for('update');
}

async function undo(points: PointsService, tx: Transaction, vote: VoteSettlement, previous: Ballot): Promise<void> {
  if (previous.direction === 'UP') {
    await points.change(tx, { memberId: vote.voterId, amount: -1, reason: PointReason.UP_VOTE_CANCELLED });
  }
  if (previous.authorPoints !== 0) {
    const reason = previous.direction === 'UP' ? VotePointReason.UP_VOTE_REVOKED : VotePointReason.DOWN_VOTE_REVOKED;
    await points.change(tx, { memberId: vote.authorId, amount: -previous.authorPoints, reason });
  }
}

async function cast(
  points: PointsService,
  tx: Transaction,
  vote: VoteSettlement,
  next: VoteDirection,
): Promise<number> {
  if (next === 'DOWN') {
    return points.change(tx, { memberId: vote.authorId, amount: -1, reason: PointReason.DOWN_VOTE_RECEIVED });
  }
  await points.change(tx, {
    memberId: vote.voterId,
    amount: 1,
    reason: PointReason.UP_VOTE_GIVEN,
    dailyCap: DailyCaps.UP_VOTES_GIVEN,
  });
  return points.change(tx, {
    memberId: vote.authorId,
    amount: 5,
    reason: PointReason.UP_VOTE_RECEIVED,
    dailyCap: DailyCaps.UP_VOTES_RECEIVED,
  });
}
