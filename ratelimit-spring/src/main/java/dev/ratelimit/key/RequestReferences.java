package dev.ratelimit.key;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import dev.ratelimit.RateLimitRequest;

import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.common.CompositeStringExpression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.util.StringUtils;

/**
 * Rejects, at start-up, a template that calls on {@code request} (or {@code #request}) a method or property that
 * {@link RateLimitRequest} does not have, such as the Servlet API's {@code getSession()}: it would fail on every
 * request, and the rule would silently fall back. The message names what the request offers and the way to the web
 * stack's own request.
 */
final class RequestReferences {

	private static final List<String> OFFERED = Arrays.stream(RateLimitRequest.class.getMethods())
		.map(Method::getName)
		.distinct()
		.sorted()
		.toList();

	private static final Set<String> METHODS = Stream
		.concat(OFFERED.stream(), Arrays.stream(Object.class.getMethods()).map(Method::getName))
		.collect(Collectors.toUnmodifiableSet());

	private RequestReferences() {
	}

	/**
	 * Checks every reference to a member of the request in a parsed template.
	 * @param expression the template
	 * @throws ParseException naming the first member that the request does not have
	 */
	static void check(Expression expression) {
		if (expression instanceof CompositeStringExpression composite) {
			for (Expression part : composite.getExpressions()) {
				check(part);
			}
		}
		else if (expression instanceof SpelExpression spel) {
			check(spel.getExpressionString(), spel.getAST());
		}
	}

	private static void check(String expression, SpelNode node) {
		if (node instanceof CompoundExpression && node.getChildCount() > 1 && isRequest(node.getChild(0))) {
			checkMember(expression, node.getChild(1));
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			check(expression, node.getChild(i));
		}
	}

	private static boolean isRequest(SpelNode node) {
		return (node instanceof PropertyOrFieldReference property && property.getName().equals("request"))
				|| (node instanceof VariableReference && node.toStringAST().equals("#request"));
	}

	private static void checkMember(String expression, SpelNode member) {
		if (member instanceof MethodReference method && !METHODS.contains(method.getName())) {
			throw missing(expression, member, "method '" + method.getName() + "'");
		}
		if (member instanceof PropertyOrFieldReference property && !isProperty(property.getName())) {
			throw missing(expression, member, "property '" + property.getName() + "'");
		}
	}

	/** Whether a property resolves as SpEL resolves it: a getter, a boolean {@code is} getter or a plain accessor. */
	private static boolean isProperty(String name) {
		String suffix = StringUtils.capitalize(name);
		return METHODS.contains("get" + suffix) || METHODS.contains("is" + suffix) || METHODS.contains(name);
	}

	private static ParseException missing(String expression, SpelNode member, String what) {
		return new ParseException(expression, member.getStartPosition(), "request has no " + what
				+ "; it offers " + String.join(", ", OFFERED) + ". Reach the web stack's own request with"
				+ " request.nativeRequest (e.g. request.nativeRequest." + member.toStringAST()
				+ "), which ties the expression to that stack");
	}

}
