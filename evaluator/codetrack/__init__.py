"""Code track: GraphEval36K's 40 graph coding problems, rebuilt sound.

A problem = statement in our words + signature + reference solution + checker + a case
builder that turns a generated graph into the problem's input form (MLE-bench style:
data + a small grader).
"""
